/**
 * Wall time of the full non-browser catalog against the embedded reference, as a user runs it:
 * `idp-conformance run --skip 'browser.*'` in a process of its own, from start to exit (tsx
 * start-up, RSA key generation, discovery, every scenario, the reports).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Report, Summary } from '../harness/model/results.ts';

export interface CatalogRun {
  wallMs: number;
  exitCode: number | null;
  /** The report's own durationMs: discovery and the scenarios, without start-up and reports. */
  runMs?: number;
  summary?: Summary;
  /** The slowest scenarios, for docs/performance.md and for whoever makes the catalog faster. */
  slowest?: { id: string; durationMs: number }[];
}

export interface CatalogOptions {
  /** Runs in a row; the first also fills tsx's transform cache. */
  repeat: number;
  seed?: number;
}

const CLI = fileURLToPath(new URL('../bin/idp-conformance.js', import.meta.url));

/**
 * `idp-conformance ARGS` in a process of its own; resolves with its exit code once it exits with 0 or 1 (a verdict),
 * and throws with the end of its stderr otherwise (a usage, config or set-up error).
 */
export async function runCli(args: readonly string[]): Promise<number | null> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exitCode = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => resolve(code));
  });
  if (exitCode !== 0 && exitCode !== 1)
    throw new Error(`idp-conformance ${args[0] ?? ''} exited ${String(exitCode)}: ${stderr.trim().slice(-2000)}`);
  return exitCode;
}

async function runOnce(seed: number): Promise<CatalogRun> {
  const dir = await mkdtemp(join(tmpdir(), 'idp-bench-catalog-'));
  try {
    const started = performance.now();
    const exitCode = await runCli([
      'run',
      '--skip',
      'browser.*',
      '--seed',
      String(seed),
      '--report',
      dir,
      '--format',
      'json',
    ]);
    const wallMs = performance.now() - started;
    const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as Report;
    const slowest = [...report.results]
      .sort((a, b) => b.durationMs - a.durationMs)
      .slice(0, 5)
      .map((r) => ({ id: r.id, durationMs: r.durationMs }));
    return { wallMs, exitCode, runMs: report.durationMs, summary: report.summary, slowest };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function catalogWallTime(options: CatalogOptions): Promise<CatalogRun[]> {
  const runs: CatalogRun[] = [];
  for (let i = 0; i < options.repeat; i++) runs.push(await runOnce(options.seed ?? 1));
  return runs;
}
