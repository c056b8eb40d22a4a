/**
 * The registration scenarios on a server that registers only with an initial access token (RFC 7591 §3): with the
 * config's `registration.initialAccessToken` (which the reference's target config, `serve --target-out`, carries) they
 * send it and judge the endpoint (they pass on the clean reference and
 * a planted flaw still fails); without it they are skipped, naming the field that would let them run.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedReference } from '../../cli/embedded.ts';
import type { Report } from '../../harness/model/results.ts';
import { runConformance } from '../../index.ts';
import type { FlawName } from '../../protocol/flaw-names.ts';

const TOKEN = 'initial-access-token-for-the-test';
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

async function run(withToken: boolean, flaws: FlawName[] = []): Promise<Report['results']> {
  const ref = await startEmbeddedReference({ flaws, registration: { initialAccessToken: TOKEN } });
  closers.push(() => ref.server.close());
  // The reference's own target config (what `serve --target-out` writes) carries the token in its registration
  // section; the run without it leaves that section out.
  const { registration, ...rest } = ref.target as unknown as Record<string, unknown>;
  expect(registration).toEqual({ enabled: false, initialAccessToken: TOKEN });
  const target = withToken ? { ...rest, registration } : rest;
  const report = await runConformance({ target: target as never, only: ['registration.*'], seed: 11 });
  // A secret of the config: sent to the registration endpoint, never written into the report.
  expect(JSON.stringify(report)).not.toContain(TOKEN);
  return report.results;
}

describe('registration scenarios and the initial access token', () => {
  it('with registration.initialAccessToken every one runs and passes on the clean reference', async () => {
    const results = await run(true);
    expect(results.length).toBeGreaterThanOrEqual(7);
    for (const r of results) expect([r.id, r.status, r.message ?? r.skipReason]).toEqual([r.id, 'passed', undefined]);
  }, 180_000);

  it('and a planted flaw still fails its scenario', async () => {
    const results = await run(true, ['registration-management-open']);
    const judged = results.find((r) => r.id === 'registration.management-auth');
    expect(judged?.status, judged?.message).toBe('failed');
  }, 180_000);

  it('without it they are skipped, naming the config field', async () => {
    const results = await run(false);
    for (const r of results) {
      expect(r.status, r.id).toBe('skipped');
      expect(r.skipReason).toMatch(/initial access token \(RFC 7591 §3\); give it as registration\.initialAccessToken/);
    }
  }, 180_000);
});
