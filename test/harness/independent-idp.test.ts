/** The harness is not tuned to the reference: against oidc-provider (an independent, certified IdP) every scenario passes too. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConformance } from '../../index.ts';
import { type StartedOidcProvider, startOidcProvider } from '../support/oidc-provider.ts';

let op: StartedOidcProvider;
beforeAll(async () => { op = await startOidcProvider(); });
afterAll(async () => { await op.close(); });

describe('the built-in scenarios against oidc-provider', () => {
  it('log in through its own login and consent pages with the form driver, and pass (or skip with the reason)', async () => {
    const report = await runConformance({ target: op.target, seed: 1 });
    const notPassing = report.results.filter((r) => r.status !== 'passed' && !(r.status === 'skipped' && r.skipReason));
    expect(notPassing.map((r) => [r.id, r.status, r.message ?? null])).toEqual([]);
    expect(report.results.find((r) => r.id === 'code.happy-path')?.status).toBe('passed');
    const happy = report.results.find((r) => r.id === 'code.happy-path')!;
    expect(happy.evidence.some((e) => e.kind === 'http' && e.label?.startsWith('login step'))).toBe(true);
  });
});
