/**
 * redirect.no-open-redirect against a tiny authorization endpoint that misbehaves in the ways the
 * reference's planted flaw does not: an error page that refreshes to the attacker, a redirect to
 * another path of the attacker's origin, a redirect to a third origin (which the check does not
 * follow), and a redirect within the IdP before the error page.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { validateConfig } from '../../harness/config/load.ts';
import { runSuite } from '../../harness/run/conformance.ts';
import type { ScenarioResult } from '../../harness/model/results.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';
import { planRun } from '../../harness/run/plan.ts';

type Answer = (url: URL, issuer: string) => { status: number; headers?: Record<string, string>; body?: string };

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

async function run(answer: Answer): Promise<ScenarioResult> {
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
    const { status, headers = {}, body = '' } = answer(url, issuer);
    res.writeHead(status, { 'content-type': 'text/html', ...headers }).end(body);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config = validateConfig(
    {
      issuer,
      clients: {
        confidential: {
          clientId: 'web',
          clientSecret: 'web-secret-value',
          redirectUri: REGISTERED,
        },
      },
      user: { username: 'alice', password: 'alice-password' },
    },
    {},
  );
  const report = await runSuite(
    planRun({
      config,
      seed: 3,
      scenarios: BUILT_IN_SCENARIOS.filter((s) => s.id === 'redirect.no-open-redirect'),
    }),
  );
  return report.results[0]!;
}

const errorPage = {
  status: 400,
  body: '<html><head><title>Error</title></head><body><h1>Invalid redirect_uri</h1></body></html>',
};

const REGISTERED = 'https://web.example.test/callback';

/** The sound request (the registered redirect_uri) gets a code at once (a remembered sign-in). */
function sound(url: URL) {
  if (url.pathname !== '/auth' || url.searchParams.get('redirect_uri') !== REGISTERED) return undefined;
  const back = new URL(REGISTERED);
  back.search = new URLSearchParams({ code: 'code-abcdefgh', state: url.searchParams.get('state') ?? '' }).toString();
  return { status: 302, headers: { location: back.href } };
}

describe('redirect.no-open-redirect', () => {
  it('passes on an error page reached through a redirect within the IdP', async () => {
    const r = await run(
      (url) =>
        sound(url) ?? (url.pathname === '/auth' ? { status: 302, headers: { location: '/error?id=1' } } : errorPage),
    );
    expect(r.status, r.message).toBe('passed');
  });

  it('cannot judge when the sound request is kept on the same page: an error, not a pass', async () => {
    const r = await run((url) =>
      url.pathname === '/auth' ? { status: 302, headers: { location: '/error?id=1' } } : errorPage,
    );
    expect(r.status).toBe('error');
    expect(r.message).toMatch(/^could not judge: .* a sound request with an S256 challenge failed too/);
  });

  it('fails on an error page that refreshes to the attacker', async () => {
    const r = await run((url) => ({
      status: 200,
      body:
        `<html><head><meta http-equiv="refresh" content="0; ` +
        `url=${url.searchParams.get('redirect_uri')}?error=invalid_request"></head></html>`,
    }));
    expect(r.status).toBe('failed');
    expect(r.message).toMatch(
      new RegExp(
        /got an error page that refreshes to https:\/\/attacker\.example with error=invalid_request; /.source +
          /RFC 6749 §4\.1\.2\.1 forbids/.source,
      ),
    );
  });

  it("fails on a redirect to another path of the attacker's origin, without fetching it", async () => {
    const r = await run(() => ({
      status: 303,
      headers: { location: 'https://attacker.example/elsewhere#error=unsupported_response_type' },
    }));
    expect(r.status).toBe('failed');
    expect(r.message).toMatch(/got a redirect to https:\/\/attacker\.example with error=unsupported_response_type/);
    expect(r.evidence.filter((e) => e.kind === 'http' && e.request.url.startsWith('https://'))).toEqual([]);
  });

  it('cannot judge a redirect to a third origin: an error, and the redirect is not followed', async () => {
    const r = await run(() => ({ status: 302, headers: { location: 'https://login.other.test/start' } }));
    expect(r.status).toBe('error');
    expect(r.message).toMatch(/redirected to https:\/\/login\.other\.test\/start, outside its origin/);
  });
});
