/**
 * The planted-flaw matrix (docs/catalog.md; issue 13 item 8), registered once per seed:
 * 1. Against the clean reference every scenario passes (a skip only with a written reason; the
 *    legacy grants' warnings only where the legacy client is seeded).
 * 2. For every flaw, the whole non-browser catalog runs against the reference with that flaw on:
 *    each scenario that claims the flaw gets exactly the status its level implies (failed at MUST,
 *    warning at SHOULD) unless EXPECTED says otherwise with the reason, and every other scenario
 *    keeps its clean status unless SIDE_EFFECTS names it with the reason — a flaw that breaks a
 *    scenario that does not claim it is visible.
 * Browser scenarios are proven in test/browser with Chromium.
 *
 * MATRIX_ONLY='code.*,pkce.*' narrows the catalog while writing scenarios.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedReference } from '../../cli/embedded.ts';
import { idMatcher, patternList } from '../../harness/run/glob.ts';
import type { FailureKind, ProfileName, Report, ScenarioResult, Status } from '../../harness/model/results.ts';
import type { Scenario } from '../../harness/scenario/scenario.ts';
import { runConformance } from '../../index.ts';
import { FLAW_NAMES, type FlawName, type ReferenceOptions } from '../../reference/index.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';
import { FLAW_OPTIONS, FLAW_PROFILES, FLAW_WAITS, OPT_IN } from './opt-in.ts';

export const CATALOG = BUILT_IN_SCENARIOS.filter((s) => s.area !== 'browser');
const only = process.env.MATRIX_ONLY ? idMatcher(patternList([process.env.MATRIX_ONLY])) : () => true;
export const IN_SCOPE = CATALOG.filter((s) => only(s.id));

/** Areas that need the opt-in legacy client (password, implicit and hybrid grants) on the reference. */
const LEGACY_AREAS = new Set(['implicit', 'hybrid', 'password']);
/** The scenarios of other areas that need it too: form_post with the implicit and hybrid response types. */
const LEGACY_ELSEWHERE = new Set(['form-post.implicit-hybrid']);
const needsLegacy = (r: { area: string; id: string }) => LEGACY_AREAS.has(r.area) || LEGACY_ELSEWHERE.has(r.id);

/**
 * Flaws that break no requirement binding the server, so no scenario may claim them (they stay in
 * reference/flaws.ts for the reference's own probes).
 */
export const NOT_A_SERVER_VIOLATION: Readonly<Partial<Record<FlawName, string>>> = {
  'pkce-verifier-format-unchecked':
    'RFC 7636 §4.1 tells the client how to make a verifier; no RFC or SPEC sentence makes the server refuse one ' +
    'made otherwise (see pkce.verifier-format)',
};

interface Outcome {
  status: Status;
  why: string;
  kind?: FailureKind;
}

/** A claimant whose status is not the one its level implies, with the reason. */
export const EXPECTED: Readonly<Partial<Record<FlawName, Record<string, Outcome>>>> = {
  'id-token-hint-ignored': {
    'id-token-hint.prompt-none': {
      status: 'warning',
      why:
        "a hint naming another user must not be answered for the session's user, but OIDC Core §3.1.2.1 says " +
        'only that the OP SHOULD return an error then',
    },
  },
  'rotation-drops-old-key': {
    'jwks.rotation': {
      status: 'warning',
      why: 'OIDC Core §10.1.1 asks (SHOULD) that recently decommissioned signing keys stay in the JWKS',
    },
  },
  'device-code-low-entropy': {
    'entropy.other-secrets': {
      status: 'warning',
      why:
        'RFC 8628 §5.2 asks (SHOULD) for a very high entropy device code; the MUST of the scenario is the ' +
        "request_uri's",
    },
  },
  'par-request-uri-reuse': {
    'par.request-uri-single-use': {
      status: 'warning',
      why:
        'RFC 9126 §4 makes one-time use of a request_uri a SHOULD; the FAPI 2.0 SP MUST counts only in the ' +
        'fapi2 profile',
    },
  },
  'logout-redirect-without-hint': {
    'logout.id-token-hint-checked': {
      status: 'warning',
      why:
        'only its request without id_token_hint is redirected, and RP-Initiated Logout §3 forbids that "unless the ' +
        'OP has other means of confirming the legitimacy of the post-logout redirection target": judged a SHOULD',
    },
  },
  'logout-open-redirect': {
    'logout.id-token-hint-checked': {
      status: 'warning',
      why:
        'the forged hints are still refused (they are checked before the redirect URI); only the request without ' +
        'id_token_hint is redirected, judged a SHOULD (RP-Initiated Logout §3 has an exception the harness cannot see)',
    },
  },
  'third-party-long-lived': {
    'tokens.third-party-short-lived': {
      status: 'warning',
      why:
        'the flaw gives third-party clients the first-party lifetimes: equal, not longer; "short" has no number, ' +
        'so equal lifetimes break only SPEC › Limits (rule 1), a SHOULD',
    },
  },
};

/** Every token-endpoint error comes back without a JSON body: what expects an RFC 6749 §5.2 error fails, as interop. */
const NON_JSON_ERRORS: Outcome = {
  status: 'failed',
  kind: 'refused-wrongly',
  why:
    'error-format-wrong answers every token-endpoint error without a JSON body, so a scenario that expects an ' +
    'RFC 6749 §5.2 error code sees none',
};

/**
 * Scenarios that do not claim a flaw but change status under it, with the reason (a real detection belongs in `catches`
 * instead).
 */
export const SIDE_EFFECTS: Readonly<Partial<Record<FlawName, Record<string, Outcome>>>> = {
  'consent-skipped': {
    'authorize.user-denies': { status: 'skipped', why: 'without a consent page the user has nothing to deny' },
  },
  'id-token-wrong-aud': {
    'logout.id-token-hint-checked': {
      status: 'error',
      why:
        "its control (the client's own ID token as id_token_hint) is refused, so the refusals it judges cannot be " +
        "put down to their hints: 'could not judge'",
    },
    'logout.rp-initiated': {
      status: 'failed',
      kind: 'refused-wrongly',
      why:
        'its id_token_hint is an ID token with the wrong aud, so the OP does not take it as a hint for this ' +
        'client and does not redirect back',
    },
    'logout.back-channel': {
      status: 'error',
      why: 'its logout request carries that ID token as id_token_hint, refused with an error page: no logout happens',
    },
    'logout.front-channel': {
      status: 'error',
      why: 'the same: the id_token_hint is refused with an error page, so there is no logged-out page to read',
    },
  },
  'id-token-unknown-kid': {
    'logout.id-token-hint-checked': {
      status: 'error',
      why: "the same: its control's id_token_hint is refused, so it cannot judge",
    },
    'id-token-hint.prompt-none': {
      status: 'failed',
      kind: 'refused-wrongly',
      why: "the hint is an ID token whose kid the OP's own JWKS lacks, so the OP refuses it as not issued by it",
    },
    'logout.rp-initiated': {
      status: 'failed',
      kind: 'refused-wrongly',
      why: 'the same: the id_token_hint is refused, so the logout does not redirect back',
    },
    'logout.back-channel': {
      status: 'error',
      why: 'the same: the id_token_hint is refused with an error page, so no logout happens',
    },
    'logout.front-channel': {
      status: 'error',
      why: 'the same: the id_token_hint is refused with an error page, so there is no logged-out page to read',
    },
  },
  'prompt-none-ignored': {
    'logout.without-parameters': {
      status: 'error',
      why:
        'its control (prompt=none in the signed-in session before the logout) gets login_required, so whether the ' +
        "logout ended the session cannot be told: 'could not judge'",
    },
    'prompt.none-no-session': {
      status: 'error',
      why:
        'its control (the same prompt=none request in a signed-in session) gets login_required too, so the ' +
        "refusal without a session cannot be put down to the missing session: 'could not judge'",
    },
  },
  'prompt-none-shows-page': {
    'logout.rp-initiated': {
      status: 'error',
      why: 'it proves the session ended with a prompt=none request, which now stops at a page instead of answering',
    },
  },
  'scope-order-sensitive': {
    'id-token.scope-claims': {
      status: 'error',
      why: 'its set-up asks for scopes in an order the flawed server refuses, so it gets no code to judge',
    },
  },
  'unknown-param-rejected': {
    'par.flow': {
      status: 'failed',
      kind: 'refused-wrongly',
      why:
        'the flaw refuses the pushed request too (its parameters are checked by the same code), so a sound push ' +
        'gets invalid_request',
    },
    'par.bound-to-client': {
      status: 'error',
      why: 'the same: its set-up push is refused, so there is no request_uri to judge',
    },
    'par.request-uri-single-use': { status: 'error', why: 'the same: its set-up push is refused' },
    ...Object.fromEntries(
      ['par.http-method', 'par.duplicate-parameters', 'dpop.jkt-bound', 'entropy.other-secrets'].map((id) => [
        id,
        { status: 'error', why: 'the same: its sound push (its control, or its set-up) is refused' },
      ]),
    ),
  },
  'device-tokens-before-approval': {
    'device.slow-down': {
      status: 'error',
      why:
        'the first poll already gets tokens, so there is no pending device code to poll too fast with: it cannot ' +
        'judge slow_down',
    },
  },
  'error-format-wrong': {
    ...Object.fromEntries(
      [
        'client-auth.bad-secret',
        'code.bound-to-client',
        'code.redirect-uri-checked',
        'code.single-use',
        'device.denied',
        'device.pending',
        'pkce.downgrade',
        'pkce.verifier-mismatch',
        'pkce.verifier-missing',
        'refresh.bound-to-client',
        'refresh.reuse-rejected',
        'refresh.reuse-revokes-family',
        'refresh.scope-no-widen',
        'refresh.unknown-rejected',
        'revocation.refresh-token',
        'scope.escalation-token',
        'token-exchange.invalid-subject',
        'token-exchange.scope-escalation',
        'token.unsupported-grant-type',
        'client-auth.assertion-audience',
        'client-auth.assertion-replay',
        'client-auth.private-key-jwt',
        'client-auth.assertion-times',
      ].map((id) => [id, NON_JSON_ERRORS]),
    ),
    'resource.audience': { ...NON_JSON_ERRORS, status: 'warning' }, // RFC 8707 §2's invalid_target is a SHOULD
    'device.slow-down': {
      status: 'error',
      why: 'its first poll gets no readable authorization_pending, so it cannot start polling too fast',
    },
  },
  'refresh-not-rotated': {
    'refresh.reuse-rejected': {
      status: 'skipped',
      why:
        'without rotation no refresh token is ever rotated out, so there is nothing to replay ' +
        '(refresh.rotation fails)',
    },
    'refresh.reuse-revokes-family': { status: 'skipped', why: 'the same: no rotated-out token to replay' },
  },
  'introspection-always-active': {
    'revocation.refresh-revokes-access': {
      status: 'skipped',
      why:
        'it judges tokens at introspection, which the flaw makes say active for a revoked access token too: the ' +
        'premise (the target revokes access tokens at all) is not seen',
    },
  },
  'revocation-noop': {
    'revocation.client-bound': {
      status: 'error',
      why:
        "its control (the owner revoking its own refresh token) revokes nothing, so the other client's harmless " +
        "request cannot be put down to the token's owner: 'could not judge'",
    },
    'revocation.refresh-revokes-access': {
      status: 'skipped',
      why: 'the revoked refresh token itself still works, the premise (revocation.refresh-token fails)',
    },
  },
};

/**
 * Flaws under which every scenario that does not claim them may be an error for the reason given
 * (matched in its message); one that does not error keeps its clean status.
 */
export const STOPS_THE_RUN: Readonly<Partial<Record<FlawName, { message: RegExp; why: string }>>> = {
  'discovery-issuer-mismatch': {
    message: /the discovery document names the issuer .*OIDC Discovery §4\.3/,
    why:
      'OIDC Discovery §4.3: a document naming another issuer must not be used, so the origin policy refuses ' +
      'every endpoint it names',
  },
};

const show = (r: ScenarioResult) =>
  `${r.id}: ${r.status}${r.message ? ` — ${r.message}` : ''}${r.skipReason ? ` — ${r.skipReason}` : ''}`;

/** Generous: the matrix runs beside the rest of `npm test` on 2 cores; a slow scenario must not turn into an error. */
const SCENARIO_TIMEOUT_MS = 120_000;

async function runAgainst(
  options: ReferenceOptions,
  scenarios: readonly Scenario[],
  seed: number,
  profile?: ProfileName,
  withWaits = false,
): Promise<Report> {
  const ref = await startEmbeddedReference(options);
  try {
    return await runConformance({
      target: ref.target,
      scenarios,
      seed,
      ...(profile ? { profile } : {}),
      ...(withWaits ? { withWaits } : {}),
      concurrency: 4,
      scenarioTimeoutMs: SCENARIO_TIMEOUT_MS,
    });
  } finally {
    await ref.server.close();
  }
}

const claimants = (flaw: FlawName) => CATALOG.filter((s) => s.catches?.includes(flaw));

/**
 * On the OAuth-only reference: statuses that differ from the OpenID provider's under a flaw, with the reason (over
 * EXPECTED and SIDE_EFFECTS).
 */
export const OAUTH_ONLY: Readonly<Partial<Record<FlawName, Record<string, Outcome>>>> = {
  'request-object-long-lived': {
    'request-object.lifetime': {
      status: 'skipped',
      why:
        "the OAuth-only reference's RFC 8414 metadata lists no request_object_signing_alg_values_supported (an " +
        'OpenID Discovery field it leaves out), so no signed request object is offered to push (the flaw is proven ' +
        'on the OpenID reference)',
    },
  },
  ...Object.fromEntries(
    (['id-token-wrong-aud', 'id-token-unknown-kid', 'at-hash-wrong'] as const).map((flaw) => [
      flaw,
      {
        'code.happy-path': {
          status: 'passed',
          why: 'an OAuth 2.0 authorization server issues no ID token, so the flawed ID token is never made',
        },
      },
    ]),
  ),
  ...Object.fromEntries(
    (['exchange-upscope', 'error-format-wrong'] as const).map((flaw) => [
      flaw,
      {
        'token-exchange.scope-escalation': {
          status: 'skipped',
          why:
            'on the OAuth-only reference the exchange client may hold api:read api:write only, which the subject ' +
            'token has already: no wider scope to ask for (the flaw is proven on the OpenID reference)',
        },
      },
    ]),
  ),
  'dpop-bearer-accepted': {
    'dpop.no-bearer-downgrade': {
      status: 'skipped',
      why:
        'the OAuth-only reference has no userinfo endpoint to present the token at (the flaw is proven on the ' +
        'OpenID reference)',
    },
  },
  'discovery-field-missing': {
    'implicit.no-refresh-token': {
      status: 'skipped',
      why:
        'on the OAuth-only reference the flaw leaves out response_types_supported (RFC 8414 §2 REQUIRED), so the ' +
        'implicit grant is not advertised to the legacy scenario',
    },
    'implicit.fragment-delivery': {
      status: 'skipped',
      why:
        'on the OAuth-only reference the flaw leaves out response_types_supported, so no response type returning a ' +
        'token from the authorization endpoint is advertised',
    },
  },
};

/**
 * Scenarios for every server whose premise the OAuth-only reference lacks: skipped there with this reason (their
 * flaws are proven on the OpenID reference).
 */
const OAUTH_ONLY_PREMISES: Readonly<Record<string, RegExp>> = {
  'dpop.no-bearer-downgrade': /^discovery has no userinfo_endpoint/,
  'token-exchange.scope-escalation': /is in the subject token's scope already, so no wider scope can be asked for/,
};

/** On the OAuth-only reference (serve --oauth-only) an OpenID-provider-only scenario does not apply: it is skipped. */
const OIDC_SKIP = /^an OAuth 2\.0 authorization server \(.*\): OIDC Core does not apply$/;

/**
 * `kind` "oauth2" runs it all against the OAuth-only reference (`oauthOnly`): the scenarios for OpenID providers are
 * skipped with the reason there (clean or flawed), the others are held to the same claims; SIDE_EFFECTS of a
 * scenario that does not apply are moot.
 */
export function registerFlawMatrix(seed: number, kind: 'oidc' | 'oauth2' = 'oidc'): void {
  const base: ReferenceOptions = kind === 'oauth2' ? { oauthOnly: true } : {};
  const applies = (s: Pick<Scenario, 'appliesTo'>) => kind === 'oidc' || s.appliesTo !== 'oidc';
  const label = kind === 'oauth2' ? ', OAuth-only' : '';
  // The clean reference with the legacy client: the baseline every flaw is compared with (run once).
  // A flaw that shows only with a setting on (opt-in.ts) is compared with the clean reference with that setting on.
  const cleanRuns = new Map<string, Promise<Report>>();
  const clean = (options: ReferenceOptions = {}, profile?: ProfileName, withWaits = false): Promise<Report> => {
    const key = JSON.stringify([options, profile, withWaits]);
    let run = cleanRuns.get(key);
    if (!run) {
      run = runAgainst({ ...base, ...options, legacyClient: true }, IN_SCOPE, seed, profile, withWaits);
      cleanRuns.set(key, run);
    }
    return run;
  };
  describe(`the clean reference (seed ${seed}${label})`, () => {
    let report: Report;
    let legacyReport: Report;
    beforeAll(async () => {
      report = await runAgainst(base, IN_SCOPE, seed);
      legacyReport = await clean();
    }, 600_000);

    it('passes every scenario; a skip only with a written reason', () => {
      const bad = report.results.filter((r) => r.status !== 'passed' && !(r.status === 'skipped' && r.skipReason));
      expect(bad.map(show)).toEqual([]);
      expect(report.results).toHaveLength(IN_SCOPE.length);
    });

    it(
      'skips only the legacy scenarios (whose grants the default reference does not offer), the opt-in ones ' +
        '(opt-in.ts) and those no server rule binds',
      () => {
        const skipped = report.results.filter(
          (r) =>
            r.status === 'skipped' &&
            !needsLegacy(r) &&
            !Object.hasOwn(OPT_IN, r.id) &&
            !/of the server: .* binds? the client/.test(r.skipReason ?? '') &&
            !(kind === 'oauth2' && OIDC_SKIP.test(r.skipReason ?? '')) &&
            !(kind === 'oauth2' && OAUTH_ONLY_PREMISES[r.id]?.test(r.skipReason ?? '')),
        );
        expect(skipped.map(show)).toEqual([]);
      },
    );

    if (kind === 'oauth2')
      it('is taken for an OAuth 2.0 authorization server: every OpenID-provider scenario skipped, no other', () => {
        expect(report.target.kind).toMatchObject({ protocol: 'oauth2', by: 'metadata' });
        for (const r of report.results) {
          const oidcOnly = CATALOG.find((s) => s.id === r.id)?.appliesTo === 'oidc';
          expect(oidcOnly ? r.status === 'skipped' && OIDC_SKIP.test(r.skipReason ?? '') : true, show(r)).toBe(true);
          if (!oidcOnly) expect(r.skipReason ?? '', show(r)).not.toMatch(OIDC_SKIP);
        }
      });

    it(
      'with the legacy client seeded, the legacy scenarios apply: no failure, and offering them is a warning; ' +
        'nothing else changes',
      () => {
        expect(legacyReport.results).toHaveLength(IN_SCOPE.length);
        for (const r of legacyReport.results) {
          // On the OAuth-only reference the OpenID-provider scenarios of these areas (implicit.nonce-required,
          // hybrid.*) stay skipped, as every other such scenario.
          const oidcOnly = kind === 'oauth2' && CATALOG.find((s) => s.id === r.id)?.appliesTo === 'oidc';
          if (needsLegacy(r) && oidcOnly) expect(r.skipReason ?? '', show(r)).toMatch(OIDC_SKIP);
          else if (needsLegacy(r)) expect(['passed', 'warning'], show(r)).toContain(r.status);
          else expect(r.status, show(r)).toBe(report.results.find((x) => x.id === r.id)?.status);
        }
        // Fails when the scenario is gone (renamed or removed), not only when it passes. The reference keeps implicit
        // for the legacy client it is configured for (SVC-4): no warning (implicit-for-every-client is one).
        expect(CATALOG.map((s) => s.id)).toContain('implicit.deprecated');
        if (only('implicit.deprecated'))
          expect(legacyReport.results.find((r) => r.id === 'implicit.deprecated')?.status).toBe('passed');
      },
    );
  });

  describe(`the planted flaws (seed ${seed}): the whole catalog under each`, () => {
    const baselineOf = async (flaw: FlawName): Promise<Map<string, Status>> =>
      new Map(
        (await clean(FLAW_OPTIONS[flaw], FLAW_PROFILES[flaw], FLAW_WAITS.has(flaw))).results.map((r) => [
          r.id,
          r.status,
        ]),
      );

    it(
      'every flaw is claimed by at least one scenario (or says why none may), and every claim names ' + 'a known flaw',
      (ctx) => {
        if (process.env.MATRIX_ONLY) ctx.skip('a narrowed run (MATRIX_ONLY) proves only its own scenarios');
        const unclaimed = FLAW_NAMES.filter((flaw) => claimants(flaw).length === 0 && !NOT_A_SERVER_VIOLATION[flaw]);
        expect(unclaimed).toEqual([]);
        for (const flaw of Object.keys(NOT_A_SERVER_VIOLATION) as FlawName[])
          expect(
            claimants(flaw).map((s) => s.id),
            flaw,
          ).toEqual([]);
        const unknown = CATALOG.flatMap((s) =>
          (s.catches ?? []).filter((f) => !(FLAW_NAMES as readonly string[]).includes(f)).map((f) => `${s.id}: ${f}`),
        );
        expect(unknown).toEqual([]);
      },
    );

    it(
      'every scenario EXPECTED, SIDE_EFFECTS and OPT_IN name exists; ' + 'EXPECTED names claimants, SIDE_EFFECTS not',
      () => {
        // An entry for a scenario that was renamed or removed would silently check nothing.
        const ids = new Set(CATALOG.map((s) => s.id));
        const wrong: string[] = [];
        for (const [table, entries, claims] of [
          ['EXPECTED', EXPECTED, true],
          ['SIDE_EFFECTS', SIDE_EFFECTS, false],
        ] as const)
          for (const [flaw, byId] of Object.entries(entries) as [FlawName, Record<string, Outcome>][])
            for (const id of Object.keys(byId)) {
              if (!ids.has(id)) wrong.push(`${table}[${flaw}] names ${id}, which is not in the catalog`);
              else if (claimants(flaw).some((s) => s.id === id) !== claims)
                wrong.push(`${table}[${flaw}] names ${id}, which ${claims ? 'does not claim' : 'claims'} the flaw`);
            }
        for (const id of Object.keys(OPT_IN)) if (!ids.has(id)) wrong.push(`OPT_IN names ${id}, not in the catalog`);
        expect(wrong).toEqual([]);
      },
    );

    const flaws = FLAW_NAMES.filter(
      (flaw) =>
        claimants(flaw).some((s) => IN_SCOPE.includes(s) && applies(s)) || (kind === 'oidc' && SIDE_EFFECTS[flaw]),
    );
    it.each(flaws)(
      '%s: its claimants get the status their level implies; every other scenario keeps its clean status',
      async (flaw) => {
        const baseline = await baselineOf(flaw);
        const report = await runAgainst(
          { ...base, ...FLAW_OPTIONS[flaw], flaws: [flaw], legacyClient: true },
          IN_SCOPE,
          seed,
          FLAW_PROFILES[flaw],
          FLAW_WAITS.has(flaw),
        );
        const wrong: string[] = [];
        for (const r of report.results) {
          const scenario = CATALOG.find((s) => s.id === r.id)!;
          if (!applies(scenario)) {
            if (r.status !== 'skipped') wrong.push(`does not apply to an OAuth-only server, got ${show(r)}`);
            continue;
          }
          const claims = r.catches.includes(flaw);
          const listed =
            (kind === 'oauth2' ? OAUTH_ONLY[flaw]?.[r.id] : undefined) ??
            (claims ? EXPECTED[flaw]?.[r.id] : SIDE_EFFECTS[flaw]?.[r.id]);
          const stopped =
            !claims && !listed && r.status === 'error' && STOPS_THE_RUN[flaw]?.message.test(r.message ?? '');
          const expected = stopped
            ? 'error'
            : (listed?.status ?? (claims ? (r.level === 'MUST' ? 'failed' : 'warning') : baseline.get(r.id)));
          if (r.status !== expected)
            wrong.push(`${claims ? 'claims' : 'does not claim'} ${flaw}, expected ${expected}, got ${show(r)}`);
          if (listed?.kind && r.failureKind !== listed.kind)
            wrong.push(`${r.id}: expected failureKind ${listed.kind}, got ${r.failureKind}`);
          if (claims && (r.status === 'failed' || r.status === 'warning')) {
            if (!r.message) wrong.push(`${r.id}: no message saying what the target did`);
            if (!r.failureKind) wrong.push(`${r.id}: no failureKind`);
          }
        }
        expect(wrong).toEqual([]);
        expect(report.results).toHaveLength(IN_SCOPE.length);
      },
      600_000,
    );
  });
}
