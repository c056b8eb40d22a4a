/**
 * Verdicts that hold on IdPs we did not write (issue 13): each case is a behaviour seen on a real
 * product, played by the stub IdP, with the result the harness gave before written beside it.
 */
import * as fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { exitCodeFor } from '../../cli/run-options.ts';
import { type TargetConfigInput, validateConfig } from '../../harness/config/load.ts';
import { runSuite } from '../../harness/run/conformance.ts';
import { ConfigError } from '../../harness/model/failures.ts';
import type { Report, ScenarioResult } from '../../harness/model/results.ts';
import { CheckFailure, type HttpResponse, type Scenario, defineScenario } from '../../harness/scenario/scenario.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';
import { expectAtMostOneSuccess } from '../../suites/checks/index.ts';
import { ref } from '../support/requirements.ts';
import { type StubIdp, type StubOptions, STUB, startStubIdp } from '../support/stub-idp.ts';
import { planRun } from '../../harness/run/plan.ts';

let stub: StubIdp | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

const builtIn = (...ids: string[]) => BUILT_IN_SCENARIOS.filter((s) => ids.includes(s.id));
const MUST = { rule: { spec: 'RFC 6749', section: '6', level: 'MUST', party: 'server' } } as const;

async function run(
  options: StubOptions,
  scenarios: readonly Scenario[],
  configure: (c: TargetConfigInput) => TargetConfigInput = (c) => c,
): Promise<Report & { byId: Record<string, ScenarioResult> }> {
  stub = await startStubIdp(options);
  const report = await runSuite(planRun({ config: validateConfig(configure(stub.config), {}), scenarios, seed: 13 }));
  return { ...report, byId: Object.fromEntries(report.results.map((r) => [r.id, r])) };
}

const notes = (r: ScenarioResult) => r.evidence.flatMap((e) => (e.kind === 'note' ? [e.text] : []));

describe('1. capabilities: discovery is evidence, not the whole truth', () => {
  const needsRefresh = defineScenario({
    id: 'probe.needs-refresh',
    title: 'uses the refresh grant',
    requirements: MUST,
    severity: 'low',
    requires: { roles: ['confidential'], user: true, capabilities: ['grant:refresh_token'] },
    run: () => undefined,
  });

  it(
    'without grant_types_supported (RFC 8414 default: code and implicit), a refresh_token seen for the client ' +
      'enables the refresh scenarios',
    async () => {
      // Before: skipped, "the target does not advertise the grant type refresh_token".
      const { byId } = await run({ discoveryOmit: ['grant_types_supported'] }, [needsRefresh]);
      expect(byId['probe.needs-refresh']!.status).toBe('passed');
      expect(notes(byId['probe.needs-refresh']!)).toContain(
        'grant:refresh_token is not advertised by discovery; enabled by a refresh_token in a token response to the ' +
          'confidential client',
      );
    },
  );

  const needsRefresh2 = defineScenario({
    id: 'probe.needs-refresh-2',
    title: 'uses the refresh grant as the second client',
    requirements: MUST,
    severity: 'low',
    requires: { roles: ['confidential2'], user: true, capabilities: ['grant:refresh_token'] },
    run: () => undefined,
  });

  it(
    "the probe tries every code-flow client: one client's refusal does not hide a refresh_token the other gets " +
      '(a selection judges as the full run)',
    async () => {
      // Before (issue 39): skipped, only the scenario's own client (refused) was tried.
      const { byId } = await run(
        { discoveryOmit: ['grant_types_supported'], secondClient: true, refuseSecondClient: 'invalid_scope' },
        [needsRefresh2],
      );
      expect(byId['probe.needs-refresh-2']!.status).toBe('passed');
      expect(notes(byId['probe.needs-refresh-2']!)).toContain(
        'grant:refresh_token is not advertised by discovery; enabled by a refresh_token in a token response to the ' +
          'confidential client',
      );
    },
  );

  it('a probe that finds no refresh_token with any client skips, naming every client tried', async () => {
    const { byId } = await run({ discoveryOmit: ['grant_types_supported'], secondClient: true, noRefreshToken: true }, [
      needsRefresh2,
    ]);
    const reason = byId['probe.needs-refresh-2']!.skipReason ?? '';
    expect(byId['probe.needs-refresh-2']!.status).toBe('skipped');
    expect(reason).toContain('as the confidential2 client with offline_access returned no refresh_token');
    expect(reason).toContain('as the confidential client with offline_access returned no refresh_token');
  });

  it('a configured machine client implies client_credentials although discovery leaves it out', async () => {
    // Before: skipped for the missing grant type.
    const { byId } = await run({ noClientCredentials: true }, builtIn('client-credentials.issues-token'));
    expect(byId['client-credentials.issues-token']!.status).toBe('passed');
    expect(notes(byId['client-credentials.issues-token']!)).toContain(
      'grant:client_credentials is not advertised by discovery; enabled by the configured machine client',
    );
  });

  it(
    'a capability skip names the field read, whether it was absent and the default applied, and the override ' +
      'that enables it',
    async () => {
      const needs = (id: string, capabilities: Scenario['requires']) =>
        defineScenario({
          id,
          title: id,
          requirements: MUST,
          severity: 'low',
          requires: capabilities,
          run: () => undefined,
        });
      const { byId } = await run({ discoveryOmit: ['grant_types_supported', 'code_challenge_methods_supported'] }, [
        needs('skip.password', { capabilities: ['grant:password'] }),
        needs('skip.revocation', { capabilities: ['endpoint:revocation'] }),
        needs('skip.pkce', { capabilities: ['pkce:S256'] }),
      ]);
      expect(byId['skip.password']!.skipReason).toBe(
        'the grant type "password" is not advertised: discovery has no grant_types_supported, so the RFC 8414 §2 ' +
          'default ["authorization_code", "implicit"] applies; ' +
          'if the IdP supports it, set "discoveryOverrides": { "grant_types_supported": ' +
          '["authorization_code","implicit","password"] } in the target config',
      );
      expect(byId['skip.revocation']!.skipReason).toBe(
        'discovery has no revocation_endpoint; if the IdP has one, set "discoveryOverrides": { ' +
          '"revocation_endpoint": ' +
          '"<its URL>" } in the target config',
      );
      expect(byId['skip.pkce']!.skipReason).toMatch(
        new RegExp(
          /^the PKCE method "S256" is not advertised: discovery has no code_challenge_methods_supported, /.source +
            /so RFC 8414 §2 reads that as no PKCE support; .*"code_challenge_methods_supported": \["S256"\]/.source,
        ),
      );
    },
  );

  it(
    'discoveryOverrides are merged over the fetched document, enable what they name, and are shown ' + 'in the report',
    async () => {
      const needsRevocation = defineScenario({
        id: 'probe.revocation',
        title: 'revokes',
        requirements: MUST,
        severity: 'low',
        requires: { capabilities: ['endpoint:revocation', 'pkce:S256'] },
        run: (ctx) => {
          expect(ctx.target.endpoints.revocation).toBe(`${ctx.target.issuer}/revoke`);
        },
      });
      const report = await run({ discoveryOmit: ['code_challenge_methods_supported'] }, [needsRevocation], (c) => ({
        ...c,
        discoveryOverrides: { revocation_endpoint: `${c.issuer}/revoke`, code_challenge_methods_supported: ['S256'] },
      }));
      expect(report.byId['probe.revocation']!.status).toBe('passed');
      expect(report.discoveryOverrides).toEqual({
        revocation_endpoint: `${stub!.issuer}/revoke`,
        code_challenge_methods_supported: ['S256'],
      });
    },
  );

  it('an unknown or mistyped override is a config error naming the field', () => {
    const error = (() => {
      try {
        validateConfig(
          {
            issuer: 'https://idp.test',
            discoveryOverrides: {
              grant_types: ['refresh_token'],
              revocation_endpoint: 'nope',
              grant_types_supported: 'refresh_token',
            },
          },
          {},
        );
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.join('\n')).toMatch(
      new RegExp(
        /discoveryOverrides\.grant_types.*not an RFC 8414 \/ OpenID Connect Discovery metadata field; /.source +
          /did you mean "grant_types_supported"/.source,
      ),
    );
    expect((error as ConfigError).issues.join('\n')).toMatch(
      /discoveryOverrides\.revocation_endpoint.*absolute http\(s\) URL/,
    );
    expect((error as ConfigError).issues.join('\n')).toMatch(
      /discoveryOverrides\.grant_types_supported.*JSON array of strings/,
    );
  });
});

describe('2. authorization requests every IdP accepts', () => {
  it(
    'a fresh nonce goes with every OIDC request, and authorizationParams (target, then ' + 'client) are added',
    async () => {
      // Before: code.happy-path sent a nonce, but the flows behind other scenarios did not, and an IdP that requires
      // one refused them.
      const { byId } = await run({ requireNonce: true }, builtIn('code.happy-path', 'pkce.verifier-mismatch'), (c) => ({
        ...c,
        authorizationParams: { acr_values: 'urn:test:loa:1', audience: 'api://default' },
        clients: {
          ...c.clients,
          confidential: { ...c.clients!.confidential!, authorizationParams: { audience: 'api://web' } },
        },
      }));
      expect(byId['code.happy-path']!.status).toBe('passed');
      expect(byId['pkce.verifier-mismatch']!.status).toBe('passed');
      const authorizations = stub!.requests
        .filter((r) => r.url.includes('/authorize'))
        .map((r) => new URL(r.url).searchParams);
      expect(authorizations.length).toBeGreaterThan(1);
      const nonces = authorizations.map((p) => p.get('nonce'));
      expect(nonces.every((n) => typeof n === 'string' && n.length >= 16)).toBe(true);
      expect(new Set(nonces).size).toBe(nonces.length);
      for (const p of authorizations)
        expect([p.get('acr_values'), p.get('audience')]).toEqual(['urn:test:loa:1', 'api://web']);
    },
  );

  it('authorizationParams may not set what the harness sends itself', () => {
    expect(() =>
      validateConfig({ issuer: 'https://idp.test', authorizationParams: { state: 'x', acr_values: 'y' } }, {}),
    ).toThrow(/authorizationParams\.state: is set by the harness on every authorization request/);
  });
});

describe('3. a refusal counts only when it is the refusal the scenario is about', () => {
  it(
    'scope.escalation-authorize is an error ("could not judge"), not a pass, when every ' + 'request is refused',
    async () => {
      // Before: passed, because the escalated request was refused (for a reason that had nothing to do with scope).
      const { byId } = await run(
        {
          refuseAuthorize: 'temporarily_unavailable',
          discoveryExtra: { scopes_supported: ['openid', 'profile', 'email', 'api:write'] },
        },
        builtIn('scope.escalation-authorize'),
      );
      const r = byId['scope.escalation-authorize']!;
      expect(r.status).toBe('error');
      expect(r.message).toMatch(
        new RegExp(
          /^could not judge: the request for .* redirected with error=temporarily_unavailable, /.source +
            /but a sound request .* failed too/.source,
        ),
      );
    },
  );
});

describe('3. a grant presented by another client: only invalid_grant is the refusal it is about', () => {
  const BOUND = ['code.bound-to-client', 'refresh.bound-to-client'];

  it("passes on invalid_grant: the second client redeems its own grants, not the first client's", async () => {
    const { byId } = await run({ secondClient: true }, builtIn(...BOUND));
    for (const id of BOUND) expect(byId[id], id).toMatchObject({ status: 'passed' });
  }, 30_000);

  it('fails as a security failure (accepted) when another client redeems them', async () => {
    const { byId } = await run({ secondClient: true, grantsNotBoundToClient: true }, builtIn(...BOUND));
    for (const id of BOUND) expect(byId[id], id).toMatchObject({ status: 'failed', failureKind: 'accepted' });
  }, 30_000);

  it('is an error ("could not judge") when the second client is refused whatever it presents', async () => {
    // Before: failed (refused-wrongly), blaming the binding for a refusal of the second client itself.
    const { byId } = await run({ secondClient: true, refuseSecondClient: 'unauthorized_client' }, builtIn(...BOUND));
    for (const id of BOUND) {
      expect(byId[id]!.status, id).toBe('error');
      expect(byId[id]!.message, id).toMatch(
        /^could not judge: .* got HTTP 400 with error=unauthorized_client, but .* of its own /,
      );
      expect(byId[id]!.message, id).toMatch(/unauthorized_client(.*\))? too, so the refusal cannot be put down to/);
    }
  }, 30_000);

  it("fails (refused-wrongly, an interop failure) when only the other client's grant gets another error", async () => {
    // The refusal is about the binding (the second client's own grants work), but with the wrong code.
    const { byId } = await run({ secondClient: true, crossClientError: 'invalid_client' }, builtIn(...BOUND));
    for (const id of BOUND) {
      expect(byId[id], id).toMatchObject({ status: 'failed', failureKind: 'refused-wrongly' });
      expect(byId[id]!.message, id).toMatch(/got HTTP 400 with error=invalid_client; .* error=invalid_grant/);
    }
  }, 30_000);
});

describe('4. security failures and interop failures are counted apart', () => {
  it('accepted vs refused-wrongly on results, in the summary, and in --fail-on security', async () => {
    const fails = (id: string, kind: 'accepted' | 'refused-wrongly') =>
      defineScenario({
        id,
        title: id,
        requirements: MUST,
        severity: 'high',
        run: () => {
          throw new CheckFailure(`${id} failed`, { kind });
        },
      });
    const report = await run({}, [fails('k.accepted', 'accepted'), fails('k.refused', 'refused-wrongly')]);
    expect(report.byId['k.accepted']).toMatchObject({ status: 'failed', failureKind: 'accepted' });
    expect(report.byId['k.refused']).toMatchObject({ status: 'failed', failureKind: 'refused-wrongly' });
    expect(report.summary).toMatchObject({ failed: 2, security: 1, interop: 1 });
    expect(exitCodeFor(report, 'security')).toBe(1);
    expect(exitCodeFor({ ...report, results: [report.byId['k.refused']!] }, 'security')).toBe(0);
    expect(exitCodeFor({ ...report, results: [report.byId['k.refused']!] }, 'failed')).toBe(1);
  });
});

describe('6. races and 5xx', () => {
  const res = (status: number, body: Record<string, unknown>): HttpResponse => ({
    status,
    url: 'https://idp.test/token',
    headers: new Headers(),
    text: JSON.stringify(body),
    json: body,
    body,
    header: () => undefined,
  });
  const rule = { when: '8 redemptions of one code sent at once', per: ref('RFC 6749 §4.1.2') };

  it('a race that saw HTTP 5xx warns with the count instead of passing silently', () => {
    const warnings: string[] = [];
    const answers = [
      res(200, { access_token: 'a', token_type: 'Bearer' }),
      res(500, {}),
      res(500, {}),
      res(400, { error: 'invalid_grant' }),
    ];
    expectAtMostOneSuccess({ warn: (m) => warnings.push(m) }, answers, rule);
    expect(warnings).toEqual([
      expect.stringMatching(
        /the target failed with HTTP 5xx in 2 of 4 answers \(200 with tokens, 500, 500, 400 invalid_grant\)/,
      ),
    ]);
    expect(() => expectAtMostOneSuccess({ warn: () => {} }, [res(503, {}), res(503, {})], rule)).toThrow(
      /all 2 parallel requests failed with HTTP 5xx/,
    );
  });

  it('in a property, a 5xx is a finding of its own, not the counterexample', async () => {
    // Before: the 500 was the shrunk counterexample of the property, a failure at its MUST.
    const crashes = defineScenario({
      id: 'prop.crashes',
      title: 'a property whose target crashes on some inputs',
      requirements: MUST,
      severity: 'low',
      async run(ctx) {
        await ctx.property(
          fc.integer({ min: 0, max: 9 }),
          async (n) => {
            const answer = await ctx.http.get(n % 3 === 0 ? `${ctx.target.issuer}/boom` : `${ctx.target.issuer}/jwks`, {
              label: `probe ${n}`,
            });
            if (answer.status !== 200) throw new CheckFailure(`probe ${n} got HTTP ${answer.status}`);
          },
          { runs: 20, label: 'probes' },
        );
      },
    });
    const { byId } = await run({}, [crashes]);
    const r = byId['prop.crashes']!;
    expect(r.status).toBe('warning');
    expect(r.message).toMatch(
      new RegExp(
        /^the target failed with HTTP 5xx \(500\) in \d+ of 20 runs of probes, /.source +
          /first on GET http:\/\/127\.0\.0\.1:\d+\/boom/.source,
      ),
    );
    expect(r.evidence.some((e) => e.kind === 'counterexample')).toBe(false);
  });
});

describe('7. discovery redirects', () => {
  it(
    "a redirect within the issuer's origin (django-oauth-toolkit's trailing slash) is followed, with a notice " +
      'naming the discoveryUrl to set',
    async () => {
      // Before: discovery "answered 301, not 200" and every scenario that needs a capability was skipped.
      const report = await run(
        { discoveryRedirect: 'trailing-slash' },
        builtIn('discovery.document', 'client-credentials.issues-token'),
      );
      expect(report.byId['discovery.document']!.status).toBe('passed');
      expect(report.byId['client-credentials.issues-token']!.status).toBe('passed');
      const final = `${stub!.issuer}/.well-known/openid-configuration/`;
      expect(report.target.discoveryUrl).toBe(final);
      expect(report.notices).toContainEqual(
        expect.stringContaining(
          `redirected to ${final}; the harness followed it (same origin) — set "discoveryUrl": "${final}"`,
        ),
      );
    },
  );

  it('a redirect to another origin is not followed: an error that names the Location, never a verdict', async () => {
    const report = await run(
      { discoveryRedirect: 'https://elsewhere.example/.well-known/openid-configuration' },
      builtIn('discovery.document', 'client-credentials.issues-token'),
    );
    const r = report.byId['discovery.document']!;
    expect(r.status).toBe('error');
    expect(r.message).toContain(
      'answered 301 with Location https://elsewhere.example/.well-known/openid-configuration, outside the ' +
        "issuer's origin",
    );
    expect(report.byId['client-credentials.issues-token']!.status).toBe('skipped');
    expect(stub!.requests.every((q) => q.url.startsWith(stub!.issuer))).toBe(true);
    expect(STUB.web.id).toBe('web-app');
  });
});
