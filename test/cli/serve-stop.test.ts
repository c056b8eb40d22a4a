/**
 * `serve`'s stop and its new flags (issue 43): the graceful stop's second signal exits at once, /healthz and /readyz
 * answer, and a bad --store-timeout-ms or --shutdown-grace-ms is a usage error. test/reference/faults.test.ts stops
 * `serve` under load.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { closedPort } from '../support/ports.ts';
import { spawnCli, waitFor } from '../support/spawn-cli.ts';

describe('idp-conformance serve: stopping, health', () => {
  it('answers /healthz and /readyz; a second SIGTERM during the graceful stop exits at once (status 1)', async () => {
    const port = await closedPort();
    const proc = spawnCli(['serve', '--port', String(port), '--variant', 'slow', '--shutdown-grace-ms', '20000']);
    try {
      await waitFor(proc.output, 'Press Ctrl+C to stop.', 60_000);
      const base = `http://127.0.0.1:${port}`;
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ok' });
      // A request in flight (the slow variant: 250 ms) keeps the stop waiting for it.
      // (Cut by the second signal: that is what it is for.)
      const inFlight = fetch(`${base}/.well-known/openid-configuration`).then(
        (r) => r.status,
        () => 'cut',
      );
      await delay(50);
      proc.child.kill('SIGTERM');
      await waitFor(proc.output, 'stopping the reference server', 10_000);
      proc.child.kill('SIGTERM');
      expect(await proc.exited).toBe(1);
      expect(proc.output()).toContain('SIGTERM again: stopping at once.');
      await inFlight;
    } finally {
      if (proc.child.exitCode === null) proc.child.kill('SIGKILL');
    }
  }, 90_000);

  it('a bad --store-timeout-ms or --shutdown-grace-ms is a usage error (exit 2)', async () => {
    const timeout = spawnCli(['serve', '--port', '0', '--store-timeout-ms', '0']);
    expect(await timeout.exited).toBe(2);
    expect(timeout.output()).toContain('--store-timeout-ms must be a whole number of milliseconds');
    const grace = spawnCli(['serve', '--port', '0', '--shutdown-grace-ms', 'soon']);
    expect(await grace.exited).toBe(2);
    expect(grace.output()).toContain('--shutdown-grace-ms must be a whole number of milliseconds');
  }, 60_000);
});
