/**
 * Property cases per second over loopback HTTP: two property scenarios of the kind the catalog
 * holds (malformed token requests; near-miss redirect URIs), run through the library API, the
 * runner and ctx.property (fast-check, evidence, redaction) against the embedded reference in
 * this process, as `npm run conformance` runs them.
 */
import { startEmbeddedReference } from '../cli/embedded.ts';
import { MALFORMED_TOKEN_REQUEST_KINDS, malformedTokenRequest, redirectUriNearMiss } from '../generators/index.ts';
import { CheckFailure, checks, defineScenario, runConformance, type Scenario } from '../index.ts';

export interface PropertyBenchOptions {
  /** Cases per property. */
  runs: number;
  seed?: number;
}

export interface PropertyRate {
  id: string;
  cases: number;
  durationMs: number;
  perSecond: number;
}

export interface PropertyBenchResult {
  cases: number;
  durationMs: number;
  perSecond: number;
  properties: PropertyRate[];
}

const malformedTokenRequests = defineScenario({
  id: 'bench.malformed-token-request',
  title: 'Malformed token requests get RFC 6749 §5.2 JSON errors',
  requirements: { rfc6749_5_2: { spec: 'RFC 6749', section: '5.2', level: 'MUST', party: 'server' } },
  severity: 'medium',
  requires: { roles: ['machine'], capabilities: ['endpoint:token'] },
  async run(ctx) {
    const machine = ctx.client('machine');
    const base = {
      grant_type: 'client_credentials',
      client_id: machine.clientId,
      client_secret: machine.clientSecret ?? '',
    };
    // HttpClient sends text bodies, so the invalid-UTF-8 kind is left out.
    const kinds = MALFORMED_TOKEN_REQUEST_KINDS.filter((kind) => kind !== 'non-utf8');
    await ctx.property(malformedTokenRequest(base, { kinds }), async (request) => {
      const res = await ctx.http.send({
        url: ctx.target.endpoints.token!,
        method: 'POST',
        headers: request.contentType === undefined ? {} : { 'content-type': request.contentType },
        body: request.body.toString(),
        label: request.description,
      });
      checks.expectOAuthError(
        res,
        [
          'invalid_request',
          'invalid_client',
          'unsupported_grant_type',
          'invalid_grant',
          'invalid_scope',
          'unauthorized_client',
        ],
        {
          when: `A token request with ${request.description}`,
          per: ctx.req.rfc6749_5_2,
        },
      );
    });
  },
});

const redirectNearMisses = defineScenario({
  id: 'bench.redirect-near-miss',
  title: 'Near-miss redirect URIs are refused and never redirected to',
  requirements: { rfc9700_4_1_3: { spec: 'RFC 9700', section: '4.1.3', level: 'MUST', party: 'server' } },
  severity: 'critical',
  requires: { roles: ['confidential'], capabilities: ['endpoint:authorization'] },
  async run(ctx) {
    const client = ctx.client('confidential');
    await ctx.property(redirectUriNearMiss(client.redirectUri!), async (nearMiss) => {
      const url = new URL(ctx.target.endpoints.authorization!);
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: client.clientId,
        redirect_uri: nearMiss.uri,
        scope: 'openid',
        state: ctx.random(),
      }).toString();
      const res = await ctx.http.get(url.href, { label: `near miss (${nearMiss.kind})` });
      if (res.status >= 300 && res.status < 400) {
        throw new CheckFailure(
          `An authorization request with the near-miss redirect_uri ${nearMiss.uri} was redirected ` +
            `to ${res.header('location') ?? '?'}; RFC 9700 §4.1.3 requires exact matching.`,
        );
      }
    });
  },
});

export const BENCH_PROPERTIES: readonly Scenario[] = [malformedTokenRequests, redirectNearMisses];

export async function propertyRate(options: PropertyBenchOptions): Promise<PropertyBenchResult> {
  const embedded = await startEmbeddedReference();
  try {
    const report = await runConformance({
      target: embedded.target,
      scenarios: BENCH_PROPERTIES,
      runs: options.runs,
      seed: options.seed ?? 1,
      concurrency: 1,
    });
    const properties = report.results.map((r): PropertyRate => {
      if (r.status !== 'passed')
        throw new Error(
          `the property ${r.id} did not pass against the reference: ${r.status} ${r.message ?? r.skipReason ?? ''}`,
        );
      return {
        id: r.id,
        cases: options.runs,
        durationMs: r.durationMs,
        perSecond: (options.runs / r.durationMs) * 1000,
      };
    });
    const cases = properties.reduce((sum, p) => sum + p.cases, 0);
    const durationMs = properties.reduce((sum, p) => sum + p.durationMs, 0);
    return { cases, durationMs, perSecond: (cases / durationMs) * 1000, properties };
  } finally {
    await embedded.server.close();
  }
}
