/**
 * The browser walks on a loaded machine and behind a slow IdP: a walk waits for what it needs (a page rendered, a
 * navigation ended), never for time, so `browser.device-activation` (the walk that once lost a race with its page on
 * a loaded machine: "stopped at …/activate/… (HTTP 200 "Sign in"): changed") and the other browser scenarios pass
 * with a CPU-bound process on every core and 250 ms added to every response (the `slow` variant). The busy processes
 * are this test's own children, stopped by their PIDs.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedReference } from '../../cli/embedded.ts';
import { BrowserHost } from '../../harness/login/chromium.ts';
import { runConformance } from '../../index.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';

const host = new BrowserHost();
const busy: ChildProcess[] = [];

beforeAll(() => {
  // One busy loop per core: every process of the run (Chromium, the reference, the harness) competes for CPU.
  for (let i = 0; i < availableParallelism(); i++)
    busy.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
});

afterAll(async () => {
  for (const child of busy) if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGKILL');
  await host.close();
});

describe('on a loaded machine, behind a slow IdP', () => {
  it('browser.device-activation and the other browser scenarios pass, as on an idle one', async () => {
    const scenarios = BUILT_IN_SCENARIOS.filter((s) => s.area === 'browser');
    expect(scenarios.map((s) => s.id)).toContain('browser.device-activation');
    const ref = await startEmbeddedReference({ variants: ['slow'] });
    try {
      const report = await runConformance({ target: ref.target, scenarios, browser: host, seed: 7 });
      const notPassed = report.results
        .filter((r) => r.status !== 'passed')
        .map((r) => `${r.id}: ${r.status} ${r.message ?? r.skipReason ?? ''}`);
      expect(notPassed).toEqual([]);
      expect(busy.every((c) => c.exitCode === null)).toBe(true);
    } finally {
      await ref.server.close();
    }
  }, 600_000);
});
