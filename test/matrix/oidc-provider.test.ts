/**
 * The matrix's third part: the whole catalog against an independent, certified IdP this project
 * does not control — oidc-provider, started in-process and configured soundly (test/support/
 * oidc-provider.ts: PKCE, rotation, device flow, introspection, revocation on) — reports no
 * failure. A scenario that cannot apply there is skipped with its reason; the one deliberate
 * difference (token.json-body: the service spec asks for JSON token requests, oidc-provider takes
 * form bodies only) and the one deviation (par.http-method: a GET to its PAR endpoint gets 404, not RFC 9126
 * §2.3's 405) are expected failures in its config, as a team would write them, and docs/interop.md lists them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report, ScenarioResult } from '../../harness/model/results.ts';
import { runConformance } from '../../index.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';
import { type StartedOidcProvider, startOidcProvider } from '../../interop/oidc-provider/provider.ts';

const CATALOG = BUILT_IN_SCENARIOS.filter((s) => s.area !== 'browser');
// par.http-method: oidc-provider answers a GET to its PAR endpoint with 404, where RFC 9126 §2.3 says 405
// (docs/interop.md).
const EXPECTED_FAILURES = ['token.json-body', 'par.http-method'];

/** Why a scenario cannot apply to oidc-provider as configured: each skip must be one of these. */
const SKIPS: Record<string, RegExp> = {
  'token-exchange.downscope': /exchange/,
  'token-exchange.scope-escalation': /exchange/,
  'token-exchange.invalid-subject': /exchange/,
  'implicit.no-refresh-token': /legacy client/,
  'password.no-refresh-token': /legacy client/,
  'implicit.nonce-required': /legacy client/,
  'hybrid.c-hash': /legacy client/,
  'hybrid.at-hash': /legacy client/,
  'implicit.fragment-delivery': /legacy client/,
  'form-post.implicit-hybrid': /legacy client/,
  'hybrid.code-redeemed': /legacy client/,
  // Its access tokens for users are opaque, and its JWT client-credentials tokens are accepted by
  // neither its userinfo nor its introspection: there is nowhere to present a forged JWT.
  'jwt.alg-none-rejected': /opaque|accept/,
  'jwt.key-confusion-rejected': /opaque|accept/,
  'jwt.signature-tamper-rejected': /opaque|accept/,
  'jwt.embedded-key-rejected': /opaque|accept/,
  // Its keys are fixed at start-up: there is no hook that could rotate them.
  'jwks.rotation': /hooks\.rotateKeys/,
  // Its development consent page offers only "Continue": a user cannot deny there.
  'authorize.user-denies': /nothing to deny/,
  // Its fixture offers PAR without requiring it.
  'par.required': /require_pushed_authorization_requests/,
  // No acrValues: its development login pages cannot record an authentication class (docs/interop.md).
  'step-up.acr': /acr_values_supported/,
  // No document binds the server to refuse a malformed verifier (RFC 7636 §4.1 is the client's rule).
  'pkce.verifier-format': /binds the client/,
  // oidc-provider 9 dropped front-channel logout: its discovery has no frontchannel_logout_supported.
  'logout.front-channel': /frontchannel_logout_supported/,
  // No MCP server in front of it (issue 44): no protected resource, and no Client ID Metadata Documents.
  'mcp.metadata-discovery': /protected resource/,
  'prm.metadata': /no protected resource configured/,
  'prm.challenge': /no protected resource configured/,
  'prm.audience-enforced': /no protected resource configured/,
  'prm.query-token-refused': /no protected resource configured|binds? the client/,
  'cimd.code-flow': /client_id_metadata_document_supported/,
  'cimd.client-id-matches-url': /client_id_metadata_document_supported/,
  'cimd.redirect-uri-listed': /client_id_metadata_document_supported/,
  'cimd.bad-document': /client_id_metadata_document_supported/,
  // FAPI 2.0 only (issue 45): the spec profile counts neither FAPI document.
  'fapi2.rs256-refused': /no document of the spec profile requires this/,
  'request-object.lifetime': /no document of the spec profile requires this/,
  // It waits out a code's lifetime (issue 45): only with waits allowed (run --with-waits), which this run does not.
  'code.lifetime': /run with --with-waits/,
};

let op: StartedOidcProvider;
let report: Report;
beforeAll(async () => {
  // HTTP only: POST at the authorization endpoint on, as OIDC Core §3.1.2.1 requires (docs/interop.md);
  // open dynamic registration on, so the registration scenarios judge it; JWT access tokens for the API resource
  // (RFC 9068) and request objects (RFC 9101) on, so access-token.jwt-profile and request-object.signed judge them.
  op = await startOidcProvider({
    authorizationPost: true,
    registration: true,
    apiAccessTokenFormat: 'jwt',
    requestObjects: true,
  });
  report = await runConformance({
    target: { ...op.target, expectedFailures: EXPECTED_FAILURES },
    scenarios: CATALOG,
    seed: 20261122,
  });
}, 120_000);
afterAll(async () => {
  await op?.close();
});

const show = (r: ScenarioResult) =>
  `${r.id}: ${r.status}${r.message ? ` — ${r.message}` : ''}${r.skipReason ? ` — ${r.skipReason}` : ''}`;

describe('the whole catalog against oidc-provider', () => {
  it('runs every scenario', () => {
    expect(report.results.map((r) => r.id).sort()).toEqual(CATALOG.map((s) => s.id).sort());
  });

  it('reports no failure and no error, but the expected, documented ones', () => {
    const bad = report.results.filter(
      (r) => (r.status === 'failed' && !EXPECTED_FAILURES.includes(r.id)) || r.status === 'error',
    );
    expect(bad.map(show)).toEqual([]);
    expect(report.summary.failed).toBe(report.results.filter((r) => r.status === 'failed').length);
    const jsonBody = report.results.find((r) => r.id === 'token.json-body')!;
    expect(jsonBody.status, show(jsonBody)).toBe('failed');
    expect(jsonBody.expected).toBe(true);
  });

  it('the registration scenarios judged it and left no registered client behind', () => {
    const registration = report.results.filter((r) => r.area === 'registration');
    expect(registration.map((r) => [r.id, r.status])).toEqual(registration.map((r) => [r.id, 'passed']));
    expect(registration.length).toBeGreaterThan(0);
    expect(op.registeredClients()).toEqual([]);
  });

  it('skips only what cannot apply there, each with its reason', () => {
    for (const r of report.results.filter((x) => x.status === 'skipped')) {
      expect(Object.keys(SKIPS), show(r)).toContain(r.id);
      expect(r.skipReason, r.id).toMatch(SKIPS[r.id]!);
    }
  });

  it(
    'warns only where oidc-provider leaves out an option or a SHOULD: it never answers slow_down (a MAY of ' +
      'SPEC › Limits; no RFC sentence has the server send it); its pages set no Referrer-Policy but load nothing ' +
      'from and link to no other origin (RFC 9700 §4.2.4), so no warning for them',
    () => {
      const warned = report.results.filter((r) => r.status === 'warning');
      expect(warned.map((r) => r.id).sort()).toEqual(['device.slow-down']);
      expect(report.results.find((r) => r.id === 'headers.referrer-policy')?.status).toBe('passed');
    },
  );

  it('keeps its device polling interval: no interval in its answer means the RFC 8628 default of 5 s', () => {
    const singleUse = report.results.find((r) => r.id === 'device.code-single-use')!;
    expect(singleUse.status).toBe('passed');
    expect(singleUse.durationMs).toBeGreaterThanOrEqual(5_000);
  });
});
