/**
 * The harness is not tuned to the reference: against oidc-provider (an independent, certified IdP) the scenarios pass
 * too, or say why not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConformance } from '../../index.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';
import { type StartedOidcProvider, startOidcProvider } from '../../interop/oidc-provider/provider.ts';

let op: StartedOidcProvider;
beforeAll(async () => {
  op = await startOidcProvider();
});
afterAll(async () => {
  await op.close();
});

/** The first scenarios: the whole catalog's run against oidc-provider belongs to the matrix (test/matrix). */
const FIRST = ['discovery.document', 'code.happy-path', 'client-credentials.issues-token', 'pkce.verifier-mismatch'];

describe('the built-in scenarios against oidc-provider', () => {
  it('log in through its own login and consent pages with the form driver, and pass', async () => {
    const report = await runConformance({
      target: op.target,
      scenarios: BUILT_IN_SCENARIOS.filter((s) => FIRST.includes(s.id)),
      seed: 1,
    });
    expect(report.results.map((r) => [r.id, r.status, r.message ?? null])).toEqual(
      report.results.map((r) => [r.id, 'passed', null]),
    );
    expect(report.results.map((r) => r.id).sort()).toEqual([...FIRST].sort());
    const happy = report.results.find((r) => r.id === 'code.happy-path')!;
    expect(happy.evidence.some((e) => e.kind === 'http' && e.label?.startsWith('login step'))).toBe(true);
  }, 120_000); // four scenarios with logins through oidc-provider's pages: generous on a loaded machine
});
