/** Shared assertions of the hostile suite: what must hold after every run against a hostile IdP. */
import { appendFileSync } from 'node:fs';
import { expect } from 'vitest';
import { type HostileIdp, type Mode, startHostileIdp } from './hostile-idp.ts';
import { type CliRun, RSS_LIMIT_MB, decodedLeaks, leaks, runCli } from './run-cli.ts';

/** A whole CLI run takes a few seconds; on a loaded 2-core machine, much longer. */
export const RUN_TIMEOUT_MS = 180_000;

/** Start the IdP in `mode`, run the CLI against it, stop the IdP; the run and the IdP's records. */
export async function attack(
  mode: Mode,
  options: Parameters<typeof runCli>[1],
  idpOptions: Parameters<typeof startHostileIdp>[1] = {},
): Promise<{ run: CliRun; idp: HostileIdp }> {
  const idp = await startHostileIdp(mode, idpOptions);
  try {
    const run = await runCli(idp, options);
    // HOSTILE_MEASURE=FILE: one line per run (mode, peak RSS of the CLI child, its wall time), for docs/security.md's
    // numbers.
    if (process.env.HOSTILE_MEASURE)
      appendFileSync(
        process.env.HOSTILE_MEASURE,
        `${mode}\t${run.rssMb?.toFixed(0) ?? '-'} MB\t${(run.wallMs / 1000).toFixed(1)} s\n`,
      );
    return { run, idp };
  } finally {
    await idp.close();
  }
}

/**
 * What every hostile run must show: the CLI ended by itself with the expected exit code (no crash,
 * no heap exhaustion), no secret or token anywhere a reader sees (as written, or decoded: decodedLeaks), nothing sent
 * off the target's
 * origin, no stack trace on stderr, and a bounded peak RSS.
 */
export function expectContained(run: CliRun, idp: HostileIdp, exitCode: number): void {
  const context =
    `exit ${run.code}${run.signal ? ` (${run.signal})` : ''}; ` +
    `stderr: ${run.stderr.slice(0, 3000)}\nstdout tail: ${run.stdout.slice(-3000)}`;
  expect(run.code, context).toBe(exitCode);
  expect(leaks(run, idp), context).toEqual([]);
  expect(decodedLeaks(run, idp), context).toEqual([]);
  expect(
    idp.offOriginRequests.map((r) => `${r.method} ${r.url}`),
    'requests to another origin',
  ).toEqual([]);
  expect(run.stderr).not.toMatch(/\n\s+at .+:\d+:\d+\)?\n/); // no stack trace
  expect(run.rssMb, context).toBeDefined();
  expect(run.rssMb!).toBeLessThan(RSS_LIMIT_MB);
}
