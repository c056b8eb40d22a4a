/**
 * The non-browser catalog against the reference as a distant IdP: every response delayed by 0, 100 and 250 ms (the
 * `slow` variant with `slowMs`), the reference seeding several test users and the harness running the scenarios that
 * act as a user at once, one per user (the target config's `users`). Per delay: wall time of `idp-conformance run`
 * (a process of its own, from start to exit), the requests the reference answered, the longest scenarios, and the
 * verdicts that differ from the first delay's (none, or the shortcut moved a verdict).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedReference } from '../cli/embedded.ts';
import type { Report, Summary } from '../harness/model/results.ts';
import { runCli } from './catalog.ts';
import { testUsers } from '../reference/index.ts';

export interface LatencyOptions {
  /** Milliseconds added to every response, one catalog run each; the first is what the others are compared to. */
  delaysMs: readonly number[];
  /** Test users seeded and listed in the target config (1: the scenarios that act as a user run one at a time). */
  users: number;
  concurrency: number;
  seed: number;
}

export interface LatencyRun {
  delayMs: number;
  users: number;
  concurrency: number;
  wallMs: number;
  exitCode: number | null;
  /** Requests the reference answered during the run (discovery, registration, every scenario's). */
  requests: number;
  summary: Summary;
  slowest: { id: string; durationMs: number }[];
  /** Scenarios whose status differs from the first delay's run: `id: first → this`. */
  differing: string[];
}

export const LATENCY_DEFAULTS: LatencyOptions = { delaysMs: [0, 100, 250], users: 8, concurrency: 8, seed: 7 };
/** The issue's target: the whole non-browser catalog at 250 ms per response within a minute. */
export const LATENCY_TARGET_MS = 60_000;

function runAgainst(config: string, dir: string, o: LatencyOptions): Promise<number | null> {
  const args = ['run', '--target', config, '--skip', 'browser.*', '--seed', String(o.seed)];
  return runCli([...args, '--concurrency', String(o.concurrency), '--report', dir, '--format', 'json']);
}

async function oneDelay(delayMs: number, o: LatencyOptions): Promise<Omit<LatencyRun, 'differing'> & Report> {
  let requests = 0;
  const embedded = await startEmbeddedReference(
    {
      users: testUsers(o.users),
      ...(delayMs > 0 ? { variants: ['slow' as const], slowMs: delayMs } : {}),
    },
    (server) => {
      // First in the chain: every request counts, the ones a later middleware refuses too.
      server.app.middleware.unshift(async (_ctx, next) => {
        requests++;
        await next();
      });
    },
  );
  const dir = await mkdtemp(join(tmpdir(), 'idp-bench-latency-'));
  try {
    const config = join(dir, 'target.json');
    await writeFile(config, JSON.stringify(embedded.target));
    const started = performance.now();
    const exitCode = await runAgainst(config, join(dir, 'report'), o);
    const wallMs = performance.now() - started;
    const report = JSON.parse(await readFile(join(dir, 'report', 'report.json'), 'utf8')) as Report;
    const slowest = [...report.results]
      .sort((a, b) => b.durationMs - a.durationMs)
      .slice(0, 3)
      .map((r) => ({ id: r.id, durationMs: r.durationMs }));
    return { ...report, delayMs, users: o.users, concurrency: o.concurrency, wallMs, exitCode, requests, slowest };
  } finally {
    await embedded.server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** One catalog run per delay, in order; `step` is told of each. */
export async function latencyBench(o: LatencyOptions, step: (text: string) => void): Promise<LatencyRun[]> {
  const runs: LatencyRun[] = [];
  let first: Map<string, string> | undefined;
  for (const delayMs of o.delaysMs) {
    step(`latency: ${delayMs} ms per response, ${o.users} users, concurrency ${o.concurrency}`);
    const {
      results,
      summary,
      delayMs: d,
      users,
      concurrency,
      wallMs,
      exitCode,
      requests,
      slowest,
    } = await oneDelay(delayMs, o);
    const statuses = new Map(results.map((r) => [r.id, r.status]));
    first ??= statuses;
    const differing = [...new Set([...first.keys(), ...statuses.keys()])]
      .filter((id) => first?.get(id) !== statuses.get(id))
      .map((id) => `${id}: ${first?.get(id) ?? 'absent'} → ${statuses.get(id) ?? 'absent'}`);
    runs.push({ delayMs: d, users, concurrency, wallMs, exitCode, requests, summary, slowest, differing });
  }
  return runs;
}

/** The runs as a table (docs/performance.md "Latency"). */
export function renderLatency(runs: readonly LatencyRun[]): string {
  const lines = [
    '| per response | users, concurrency | wall time | requests | scenarios (passed) | longest scenario | verdicts |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const r of runs) {
    const longest = r.slowest[0];
    lines.push(
      `| ${r.delayMs} ms | ${r.users}, ${r.concurrency} | ${(r.wallMs / 1000).toFixed(1)} s | ${r.requests} | ` +
        `${r.summary.total} (${r.summary.passed}) | ` +
        `${longest ? `${longest.id} ${(longest.durationMs / 1000).toFixed(1)} s` : '-'} | ` +
        `${r.differing.length ? `${r.differing.length} differ: ${r.differing.join('; ')}` : 'same as the first'} |`,
    );
  }
  return lines.join('\n');
}
