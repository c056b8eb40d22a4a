/**
 * The RFC 9700 / PAR / DPoP / private_key_jwt scenarios (issue 16), proven one by one: against
 * each planted flaw the claimant ends with exactly the status its level implies (failed at MUST,
 * warning at SHOULD); the opt-in scenarios pass on a reference with their setting; and
 * `--profile fapi2` runs clean on the reference started with its FAPI settings.
 */
import { describe, expect, it } from 'vitest';
import { startEmbeddedReference } from '../../cli/embedded.ts';
import type { ProfileName, Report, ScenarioResult } from '../../harness/model/results.ts';
import { runConformance } from '../../index.ts';
import type { FlawName, ReferenceOptions } from '../../reference/index.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';
import { OPT_IN, OPT_IN_PROFILES, OPT_IN_WAITS } from './opt-in.ts';

async function run(
  options: ReferenceOptions,
  ids: readonly string[] | 'all',
  profile: ProfileName = 'spec',
  withWaits = false,
): Promise<Report> {
  const ref = await startEmbeddedReference(options);
  try {
    const scenarios = BUILT_IN_SCENARIOS.filter((s) => s.area !== 'browser' && (ids === 'all' || ids.includes(s.id)));
    return await runConformance({
      target: ref.target,
      scenarios,
      seed: 20261123,
      concurrency: 4,
      profile,
      ...(withWaits ? { withWaits } : {}),
      scenarioTimeoutMs: 90_000,
    });
  } finally {
    await ref.server.close();
  }
}

const show = (r: ScenarioResult) =>
  `${r.id}: ${r.status}${r.message ? ` — ${r.message}` : ''}${r.skipReason ? ` — ${r.skipReason}` : ''}`;

/** Each flaw, its claimant and the status its requirement's level gives. */
const EXPECTED: ReadonlyArray<[FlawName, string, 'failed' | 'warning', ReferenceOptions?]> = [
  ['redirect-307-after-login', 'redirect.no-307-after-login', 'failed'],
  ['iss-missing', 'mixup.iss-parameter', 'failed'],
  ['no-referrer-policy', 'headers.referrer-policy', 'warning'],
  ['low-entropy-codes', 'entropy.codes-and-tokens', 'failed'],
  ['resource-ignored', 'resource.audience', 'warning'],
  ['par-request-uri-reuse', 'par.request-uri-single-use', 'warning'],
  ['par-not-client-bound', 'par.bound-to-client', 'failed'],
  ['par-not-enforced', 'par.required', 'failed', { requirePushedAuthorizationRequests: true }],
  ['dpop-htu-unchecked', 'dpop.proof-checked', 'failed'],
  ['dpop-refresh-not-bound', 'dpop.refresh-bound', 'failed'],
  ['dpop-bearer-accepted', 'dpop.no-bearer-downgrade', 'failed'],
  ['dpop-jkt-unchecked', 'dpop.jkt-bound', 'failed'],
  ['client-assertion-replay', 'client-auth.assertion-replay', 'failed'],
  ['client-assertion-aud-unchecked', 'client-auth.assertion-audience', 'failed'],
  ['client-assertion-times-unchecked', 'client-auth.assertion-times', 'failed'],
  ['device-code-low-entropy', 'entropy.other-secrets', 'warning'],
  ['cors-at-authorization-endpoint', 'headers.authorization-cors', 'failed'],
];

describe('the security BCP and modern building blocks', () => {
  it.each(EXPECTED)(
    '%s: %s ends %s',
    async (flaw, id, status, options = {}) => {
      const report = await run({ ...options, flaws: [flaw] }, [id]);
      const [result] = report.results;
      expect(result, id).toBeDefined();
      expect(result!.status, show(result!)).toBe(status);
      expect(result!.catches).toContain(flaw);
    },
    90_000,
  );

  it('the opt-in scenarios pass on a reference with their setting on', async () => {
    for (const [id, options] of Object.entries(OPT_IN)) {
      const report = await run(options, [id], OPT_IN_PROFILES[id], OPT_IN_WAITS.has(id));
      expect(report.results.map(show)).toEqual([`${id}: passed`]);
    }
  }, 90_000);

  it('--profile fapi2 runs clean on the reference with its FAPI settings: the FAPI-citing scenarios pass, the rest ' +
    'are skipped with the reason', async () => {
    const report = await run({ profile: 'fapi2' }, 'all', 'fapi2');
    const ran = report.results.filter((r) => r.status !== 'skipped');
    expect(ran.filter((r) => r.status !== 'passed').map(show)).toEqual([]);
    expect(ran.map((r) => r.id).sort()).toEqual(
      expect.arrayContaining([
        'client-auth.assertion-audience',
        'client-auth.private-key-jwt',
        'dpop.jkt-bound',
        'dpop.no-bearer-downgrade',
        'dpop.proof-checked',
        'dpop.token-bound',
        'entropy.codes-and-tokens',
        'fapi2.rs256-refused',
        'mixup.iss-parameter',
        'par.bound-to-client',
        'par.flow',
        'par.request-uri-single-use',
        'par.required',
        'redirect.no-307-after-login',
        'request-object.lifetime',
      ]),
    );
    for (const r of report.results.filter((x) => x.status === 'skipped')) expect(r.skipReason, r.id).toMatch(/\S/);
    const notCited = report.results.find((r) => r.id === 'code.single-use');
    expect(notCited?.skipReason).toMatch(/no document of the fapi2 profile requires this/);
  }, 180_000);

  it('the same scenarios against the default reference under --profile fapi2 fail where it is not FAPI: plain ' +
    'requests, Bearer tokens', async () => {
    const report = await run({}, ['par.required', 'dpop.token-bound'], 'fapi2');
    const byId = Object.fromEntries(report.results.map((r) => [r.id, r]));
    expect(byId['par.required']?.status, show(byId['par.required']!)).toBe('failed');
    expect(byId['dpop.token-bound']?.status, show(byId['dpop.token-bound']!)).toBe('failed');
  }, 90_000);
});
