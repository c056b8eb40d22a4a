/** The harness is not tuned to the reference: against oidc-provider (an independent, certified IdP) the scenarios pass too, or say why not. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConformance } from '../../index.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';
import { type StartedOidcProvider, startOidcProvider } from '../support/oidc-provider.ts';

let op: StartedOidcProvider;
beforeAll(async () => { op = await startOidcProvider(); });
afterAll(async () => { await op.close(); });

/** The first scenarios: the whole catalog's run against oidc-provider belongs to the matrix (test/matrix). */
const FIRST = ['discovery.document', 'code.happy-path', 'client-credentials.issues-token', 'pkce.verifier-mismatch'];

describe('the built-in scenarios against oidc-provider', () => {
  it('log in through its own login and consent pages with the form driver, and pass', async () => {
    const report = await runConformance({ target: op.target, scenarios: BUILT_IN_SCENARIOS.filter((s) => FIRST.includes(s.id)), seed: 1 });
    expect(report.results.map((r) => [r.id, r.status, r.message ?? null])).toEqual(report.results.map((r) => [r.id, 'passed', null]));
    expect(report.results.map((r) => r.id).sort()).toEqual([...FIRST].sort());
    const happy = report.results.find((r) => r.id === 'code.happy-path')!;
    expect(happy.evidence.some((e) => e.kind === 'http' && e.label?.startsWith('login step'))).toBe(true);
  });

  it('run the device flow through its activation pages (5 s interval kept), and judge its legacy grants fairly', async () => {
    const report = await runConformance({ target: op.target, seed: 1, only: ['device.*', 'implicit.*', 'password.*'] });
    const status = Object.fromEntries(report.results.map((r) => [r.id, r.status]));
    expect(status).toEqual({
      'device.authorization': 'passed', // no interval in its response: the RFC's default of 5 s applies
      'device.pending': 'passed',
      'device.approved': 'passed',
      'device.denied': 'passed', // through its [ Abort ] button, which sits outside its form
      'device.code-single-use': 'passed',
      'device.slow-down': 'warning', // oidc-provider never answers slow_down: a SHOULD, not a failure
      'implicit.deprecated': 'passed', // only response_type=code is offered
      'implicit.no-refresh-token': 'skipped',
      'password.no-refresh-token': 'skipped',
    });
    const singleUse = report.results.find((r) => r.id === 'device.code-single-use')!;
    expect(singleUse.durationMs).toBeGreaterThanOrEqual(5_000); // the second poll waited the interval
    for (const r of report.results.filter((x) => x.status === 'skipped')) expect(r.skipReason).toMatch(/needs the legacy client/);
  }, 30_000);
});
