/**
 * The OIDC Core scenarios (issue 15) against their planted flaws, with the exact status each
 * flaw's violated requirement implies: failed at MUST, warning at SHOULD (or MAY). The catalog
 * matrix proves "failed or warning" for every flaw; this pins which of the two.
 */
import { describe, expect, it } from 'vitest';
import { startEmbeddedReference } from '../../cli/embedded.ts';
import type { Status } from '../../harness/model/results.ts';
import { runConformance } from '../../index.ts';
import type { FlawName } from '../../reference/index.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';

const EXPECTED: ReadonlyArray<[FlawName, string, Status]> = [
  ['response-type-defaulted', 'authorize.response-type-missing', 'failed'],
  ['authorize-get-only', 'authorize.post', 'failed'],
  ['unknown-param-rejected', 'authorize.unknown-parameter', 'failed'],
  ['scope-order-sensitive', 'authorize.scope-order', 'failed'],
  ['denial-wrong-error', 'authorize.user-denies', 'failed'],
  ['nonce-required-for-code', 'id-token.nonce-optional', 'failed'],
  ['auth-time-missing', 'id-token.auth-time', 'failed'],
  ['prompt-none-shows-page', 'prompt.none-no-session', 'failed'],
  ['prompt-none-ignored', 'prompt.none-with-session', 'failed'],
  ['prompt-login-ignored', 'prompt.login', 'failed'],
  ['max-age-ignored', 'max-age.reauthenticates', 'failed'],
  // OIDC Core §3.1.2.1: for a hint naming another user the OP SHOULD return an error.
  ['id-token-hint-ignored', 'id-token-hint.prompt-none', 'warning'],
  ['userinfo-get-only', 'userinfo.post', 'failed'],
  ['request-object-ignored', 'request-object.unsigned', 'failed'],
  // OIDC Core §5.5: returning the requested claims is not an obligation (the certification suite warns too).
  ['claims-parameter-ignored', 'claims.parameter', 'warning'],
  ['discovery-field-missing', 'discovery.required-fields', 'failed'],
  // OIDC Core §10.1.1: decommissioned keys SHOULD stay published.
  ['rotation-drops-old-key', 'jwks.rotation', 'warning'],
  ['logout-open-redirect', 'logout.rp-initiated', 'failed'],
  ['logout-keeps-session', 'logout.rp-initiated', 'failed'],
  ['logout-token-has-nonce', 'logout.back-channel', 'failed'],
  ['front-channel-no-sid', 'logout.front-channel', 'failed'],
  ['logout-hint-unverified', 'logout.id-token-hint-checked', 'failed'],
  // RP-Initiated Logout §3's MUST NOT has an exception the harness cannot see ("unless the OP has other means").
  ['logout-redirect-without-hint', 'logout.id-token-hint-checked', 'warning'],
  ['logout-needs-parameters', 'logout.without-parameters', 'failed'],
];

const scenario = (id: string) => {
  const found = BUILT_IN_SCENARIOS.find((s) => s.id === id);
  if (!found) throw new Error(`no scenario ${id}`);
  return found;
};

async function statusOf(flaws: FlawName[], id: string): Promise<{ status: Status; message?: string | undefined }> {
  const ref = await startEmbeddedReference({ flaws });
  try {
    const report = await runConformance({ target: ref.target, scenarios: [scenario(id)], seed: 20261123 });
    const result = report.results[0]!;
    return { status: result.status, message: result.message };
  } finally {
    await ref.server.close();
  }
}

describe('the OIDC Core scenarios', () => {
  it.each(EXPECTED)(
    '%s: %s is %s',
    async (flaw, id, status) => {
      const got = await statusOf([flaw], id);
      expect(got.status, got.message).toBe(status);
      expect(got.message).toBeTruthy();
    },
    60_000,
  );

  it('every scenario of this list passes on the clean reference', async () => {
    const ids = [...new Set(EXPECTED.map(([, id]) => id))];
    const ref = await startEmbeddedReference();
    try {
      const report = await runConformance({
        target: ref.target,
        scenarios: ids.map(scenario),
        seed: 20261123,
        concurrency: 4,
      });
      expect(
        report.results
          .filter((r) => r.status !== 'passed')
          .map((r) => `${r.id}: ${r.status} ${r.message ?? r.skipReason ?? ''}`),
      ).toEqual([]);
    } finally {
      await ref.server.close();
    }
  }, 120_000);
});
