/**
 * `npm run bench -- --only vs-oidc-provider` (issue 32): the reference's CPU per RS256 `client_credentials` token
 * against oidc-provider's (interop/oidc-provider, the interop fixture, its API tokens as RS256 RFC 9068 JWTs). Each
 * server runs in a process of its own, in a process group of its own; the same autocannon load (this process, HTTP
 * Basic, a form body, the same connections and durations) goes to one server at a time, in rounds that alternate
 * which goes first. A server's CPU per token is its process group's utime + stime from /proc (every thread: the event
 * loop and the thread pool that signs) over the measured run, divided by the tokens it issued; the round's ratio is
 * oidc-provider's over the reference's, and the judged figure the median of the rounds' ratios.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { ServerProcess } from './server.ts';
import { checkTokenResponse, tokenRequest } from './throughput.ts';

/** The goal: the reference spends at least 1.5× less CPU per token than oidc-provider. */
export const VS_OIDC_PROVIDER_TARGET = 1.5;

/** Linux's USER_HZ: /proc/PID/stat counts CPU time in these ticks (100 per second on every Linux architecture). */
const TICKS_PER_SECOND = 100;

export type Contender = 'reference' | 'oidc-provider';

export interface ContenderRun {
  server: Contender;
  tokens: number;
  perSecond: number;
  latencyMs: { p50: number; p99: number };
  /** The server's process group, utime + stime over the measured run. */
  cpuUs: number;
  cpuPerTokenUs: number;
  /** 1-minute load average when the run started. */
  load: number;
}

export interface VsRound {
  runs: ContenderRun[];
  /** oidc-provider's CPU per token over the reference's. */
  ratio: number;
}

export interface VsOidcProvider {
  connections: number;
  durationS: number;
  warmupS: number;
  rounds: VsRound[];
  /** The median of the rounds' ratios. */
  ratio: number;
  met: boolean;
}

export interface VsOptions {
  rounds: number;
  durationS: number;
  warmupS: number;
  connections: number;
  /** A directory: a CPU profile of each server's main thread in each measured run. */
  profileDir?: string | undefined;
}

/**
 * CPU time, in microseconds, of every process in process group `pgid` (Linux /proc/PID/stat: the fields after the
 * command's closing parenthesis are state, ppid, pgrp, …, utime at 14 and stime at 15 of the whole line).
 */
export function processGroupCpuUs(pgid: number, proc = '/proc'): number {
  let ticks = 0;
  for (const entry of readdirSync(proc)) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(join(proc, entry, 'stat'), 'utf8');
    } catch {
      continue; // exited since the listing
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) !== pgid) continue;
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return (ticks / TICKS_PER_SECOND) * 1e6;
}

export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

async function loadOne(server: ServerProcess, name: Contender, options: VsOptions, round: number) {
  const request = tokenRequest(server.issuer, server.client);
  const run = (durationS: number) => autocannon({ ...request, connections: options.connections, duration: durationS });
  if (options.warmupS > 0) await run(options.warmupS);
  const load = loadavg()[0] ?? 0;
  if (options.profileDir) await server.profileStart();
  const before = processGroupCpuUs(server.pid);
  const result = await run(options.durationS);
  const cpuUs = processGroupCpuUs(server.pid) - before;
  if (options.profileDir) await server.profileStop(join(options.profileDir, `vs-${name}-round${round}.cpuprofile`));
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(
      `${name}'s token endpoint failed under load: ${result.non2xx} non-2xx answers, ${result.errors} errors, ` +
        `${result.timeouts} timeouts`,
    );
  }
  const tokens = result['2xx'];
  return {
    server: name,
    tokens,
    perSecond: tokens / result.duration,
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99 },
    cpuUs,
    cpuPerTokenUs: cpuUs / tokens,
    load,
  } satisfies ContenderRun;
}

export async function vsOidcProvider(
  options: VsOptions,
  step: (text: string) => void = () => {},
): Promise<VsOidcProvider> {
  const servers: Partial<Record<Contender, ServerProcess>> = {};
  try {
    servers.reference = await ServerProcess.start({ alg: 'RS256', detached: true });
    servers['oidc-provider'] = await ServerProcess.start({ alg: 'RS256', program: 'oidc-provider', detached: true });
    await checkTokenResponse(servers.reference);
    // oidc-provider's client_credentials tokens are for the fixture's API resource (RFC 8707), its audience.
    const { API_RESOURCE } = await import('../interop/oidc-provider/provider.ts');
    await checkTokenResponse(servers['oidc-provider'], API_RESOURCE);
    const rounds: VsRound[] = [];
    for (let round = 1; round <= options.rounds; round += 1) {
      const order: Contender[] = round % 2 ? ['reference', 'oidc-provider'] : ['oidc-provider', 'reference'];
      const runs: ContenderRun[] = [];
      for (const name of order) {
        step(`round ${round}/${options.rounds}: ${name}, ${options.durationS} s (${options.connections} connections)`);
        runs.push(await loadOne(servers[name]!, name, options, round));
      }
      const cpu = (name: Contender) => runs.find((r) => r.server === name)!.cpuPerTokenUs;
      rounds.push({ runs, ratio: cpu('oidc-provider') / cpu('reference') });
    }
    const ratio = median(rounds.map((r) => r.ratio));
    return {
      connections: options.connections,
      durationS: options.durationS,
      warmupS: options.warmupS,
      rounds,
      ratio,
      met: ratio >= VS_OIDC_PROVIDER_TARGET,
    };
  } finally {
    await Promise.allSettled(Object.values(servers).map((s) => s.close()));
  }
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
/** A ratio to two decimals, rounded down: 1.4966 is printed 1.49, never 1.50 beside "not met". */
export const ratioText = (x: number) => (Math.floor(x * 100 + 1e-9) / 100).toFixed(2);

export function renderVsOidcProvider(vs: VsOidcProvider): string {
  const lines = [
    `CPU per RS256 client_credentials token, reference vs. oidc-provider (${vs.connections} connections, ` +
      `${vs.durationS} s per run after ${vs.warmupS} s warm-up; CPU of each server's process group):`,
  ];
  vs.rounds.forEach((round, i) => {
    const runs = round.runs.map(
      (r) =>
        `${r.server} ${int(r.cpuPerTokenUs)} µs/token (${int(r.perSecond)} tokens/s, p99 ${r.latencyMs.p99} ms, ` +
        `load ${r.load.toFixed(2)})`,
    );
    lines.push(`  round ${i + 1}: ${runs.join('; ')}; ratio ${ratioText(round.ratio)}×`);
  });
  lines.push(
    `  median ratio ${ratioText(vs.ratio)}× (rounds ${vs.rounds.map((r) => ratioText(r.ratio)).join(', ')}) ` +
      `against the target ≥ ${VS_OIDC_PROVIDER_TARGET}×: ${vs.met ? 'met' : 'not met'}`,
  );
  return lines.join('\n');
}
