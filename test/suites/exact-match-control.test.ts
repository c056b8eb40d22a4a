/**
 * redirect.exact-match's control: an IdP that answers every authorization request alike (here a
 * script's JSON, as a Fetch-Metadata-aware IdP answers a request it takes for an XHR) refuses the
 * near misses and the registered redirect URI alike, so the refusals show nothing: an error
 * ("could not judge"), never a pass. The same IdP redirecting the registered URI with a code passes.
 */
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { validateConfig } from '../../harness/config/load.ts';
import { runSuite } from '../../harness/run/conformance.ts';
import type { ScenarioResult } from '../../harness/model/results.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';
import { planRun } from '../../harness/run/plan.ts';

const REGISTERED = 'https://web.example.test/callback';

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

async function run(redirectsRegistered: boolean): Promise<ScenarioResult> {
  let issuer = '';
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    if (url.pathname === '/.well-known/openid-configuration') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          issuer,
          authorization_endpoint: `${issuer}/auth`,
          token_endpoint: `${issuer}/token`,
          jwks_uri: `${issuer}/jwks`,
          response_types_supported: ['code'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['RS256'],
        }),
      );
      return;
    }
    if (redirectsRegistered && url.searchParams.get('redirect_uri') === REGISTERED) {
      const back = new URL(REGISTERED);
      back.search = new URLSearchParams({
        code: 'code-abcdefgh',
        state: url.searchParams.get('state') ?? '',
      }).toString();
      res.writeHead(302, { location: back.href }).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ redirect: true, url: '/login' }));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config = validateConfig(
    {
      issuer,
      clients: { confidential: { clientId: 'web', clientSecret: 'web-secret-value', redirectUri: REGISTERED } },
      user: { username: 'alice', password: 'alice-password' },
    },
    {},
  );
  const report = await runSuite(
    planRun({
      config,
      seed: 3,
      scenarios: BUILT_IN_SCENARIOS.filter((s) => s.id === 'redirect.exact-match'),
    }),
  );
  return report.results[0]!;
}

describe('redirect.exact-match: the control', () => {
  it('is an error, not a pass, when the registered redirect URI gets the same answer as the near misses', async () => {
    const r = await run(false);
    expect(r.status).toBe('error');
    expect(r.message).toMatch(/^could not judge: the request with a near-miss redirect URI .* failed too/);
  }, 60_000);

  it('passes when the near misses are refused and the registered redirect URI gets a code', async () => {
    const r = await run(true);
    expect(r.status, r.message).toBe('passed');
  }, 60_000);
});
