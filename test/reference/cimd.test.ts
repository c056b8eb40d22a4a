/**
 * Client ID Metadata Documents under `serve --mcp` (reference/mcp/cimd.ts, fetch-document.ts): a document is taken
 * only when it is a JSON object whose client_id is its URL exactly, with redirect_uris naming the request's, within
 * the size and time limits, fetched without a redirect from an allowed address; a refused one is an error page at
 * /auth (never a redirect) and invalid_client at the token endpoint, never a 5xx. The cache honours Cache-Control.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheSeconds, isClientIdUrl } from '../../reference/mcp/cimd.ts';
import { addressAllowed } from '../../reference/mcp/fetch-document.ts';
import { newVerifier, s256, startReference, type ReferenceClient } from '../support/reference-client.ts';
import { CIMD_REDIRECT, cimdClient, DocumentServer, MCP_OPTIONS } from './mcp-support.ts';

let idp: ReferenceClient;
const documents = new DocumentServer();

beforeAll(async () => {
  idp = await startReference(MCP_OPTIONS);
  await documents.start();
});
afterAll(() => Promise.all([idp.close(), documents.close()]));

/** GET /auth for the document at `url`: the status, whether it redirected, and the page's text. */
async function authorizeWith(target: ReferenceClient, url: string, redirectUri = CIMD_REDIRECT) {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: url,
    redirect_uri: redirectUri,
    scope: 'api:read',
    state: 's',
    code_challenge: s256(newVerifier()),
    code_challenge_method: 'S256',
  });
  const response = await target.get(`/auth?${query}`);
  return { status: response.status, location: response.headers.get('location'), html: await response.text() };
}

/** A token request naming the document's URL as client_id: status and error. */
async function tokenWith(target: ReferenceClient, url: string) {
  const answer = await target.token(
    { grant_type: 'authorization_code', code: 'x', redirect_uri: CIMD_REDIRECT },
    {
      client: cimdClient(url),
    },
  );
  return { status: answer.status, error: answer.body.error };
}

const refusedPage = { status: 400, location: null };

describe('accepted', () => {
  it('a good document: the login page', async () => {
    expect(await authorizeWith(idp, documents.document())).toMatchObject({ status: 200, location: null });
  });

  it('private_key_jwt with its keys in jwks', async () => {
    const jwks = { keys: [{ kty: 'EC', crv: 'P-256', x: 'a', y: 'b' }] };
    const url = documents.document({ token_endpoint_auth_method: 'private_key_jwt', jwks });
    expect((await authorizeWith(idp, url)).status).toBe(200);
  });
});

describe('refused: an error page at /auth, invalid_client at the token endpoint, never a redirect', () => {
  const cases: [string, () => string][] = [
    ['client_id differs from the URL', () => documents.serve({ body: JSON.stringify(doc('https://other.test/c')) })],
    ['client_id a prefix of the URL', () => documents.serve({ body: (url) => JSON.stringify(doc(url.slice(0, -2))) })],
    ['not JSON', () => documents.serve({ body: 'client_id=x' })],
    ['a JSON array', () => documents.serve({ body: '[]' })],
    ['no redirect_uris', () => documents.serve({ body: (url) => JSON.stringify({ client_id: url }) })],
    [
      'empty redirect_uris',
      () => documents.serve({ body: (url) => JSON.stringify({ ...doc(url), redirect_uris: [] }) }),
    ],
    ['too large (6 KiB)', () => documents.document({ client_name: 'x'.repeat(6 * 1024) })],
    ['a 404', () => `${documents.base}/clients/missing.json`],
    ['a 500', () => documents.serve({ status: 500, body: '{}' })],
    ['a redirect (never followed)', () => documents.serve({ status: 302, headers: { location: '/x' }, body: '' })],
    ['client_secret_basic', () => documents.document({ token_endpoint_auth_method: 'client_secret_basic' })],
    ['a client_secret', () => documents.document({ client_secret: 'shared' })],
    ['private_key_jwt without jwks', () => documents.document({ token_endpoint_auth_method: 'private_key_jwt' })],
    ['a remote http redirect URI', () => documents.document({ redirect_uris: ['http://app.example.test/cb'] })],
  ];
  it.each(cases)('%s', async (_, make) => {
    const url = make();
    expect(await authorizeWith(idp, url)).toMatchObject(refusedPage);
    expect(await tokenWith(idp, url)).toEqual({ status: 400, error: 'invalid_client' });
  });

  it('a redirect_uri the document does not list: the error page, not a redirect', async () => {
    const url = documents.document();
    const answer = await authorizeWith(idp, url, 'http://127.0.0.1:9/elsewhere');
    expect(answer).toMatchObject(refusedPage);
  });

  it('a redirect is not followed', async () => {
    const target = documents.document();
    const redirecting = documents.serve({ status: 302, headers: { location: target }, body: '' });
    expect(await authorizeWith(idp, redirecting)).toMatchObject(refusedPage);
    expect(documents.hitsOf(target)).toBe(0);
  });
});

describe('SSRF guard', () => {
  it('without cimdAllowLoopback a loopback document is never fetched', async () => {
    const ref = await startReference({ mcp: true });
    try {
      const url = documents.document();
      // An http URL is no client identifier URL then: an unknown client.
      expect(await authorizeWith(ref, url)).toMatchObject(refusedPage);
      for (const https of ['https://127.0.0.1:1/c.json', 'https://localhost:1/c.json', 'https://10.0.0.1/c.json']) {
        expect(await authorizeWith(ref, https)).toMatchObject(refusedPage);
        expect(await tokenWith(ref, https)).toEqual({ status: 400, error: 'invalid_client' });
      }
      expect(documents.hitsOf(url)).toBe(0);
    } finally {
      await ref.close();
    }
  });

  it('odd client identifier URLs: refused with a 4xx, never a 5xx', async () => {
    const ref = await startReference({ mcp: true });
    try {
      for (const odd of [
        'https://',
        'https://[::1/c',
        'https://0x7f.1/c.json',
        'https://2130706433/c.json',
        'https://[::ffff:127.0.0.1]/c.json',
        'https://a..b/c',
        'https://unresolvable.invalid/c.json',
        `https://${'a'.repeat(300)}.test/c`,
      ]) {
        const answer = await authorizeWith(ref, odd);
        expect(answer.status, odd).toBe(400);
        expect(answer.location, odd).toBeNull();
        // Not a client identifier URL at all: an unknown client (401); a refused document: 400.
        expect(await tokenWith(ref, odd), odd).toMatchObject({ status: expect.toBeOneOf([400, 401]) });
        expect((await tokenWith(ref, odd)).error, odd).toBe('invalid_client');
      }
    } finally {
      await ref.close();
    }
  });

  it('special-use addresses are refused; loopback only with the switch', () => {
    for (const address of ['10.1.2.3', '192.168.0.1', '169.254.169.254', '::1', 'fe80::1', '::ffff:127.0.0.1']) {
      expect(addressAllowed(address, false), address).toBe(false);
    }
    expect(addressAllowed('127.0.0.1', true)).toBe(true);
    expect(addressAllowed('10.1.2.3', true)).toBe(false);
    expect(addressAllowed('93.184.215.14', false)).toBe(true);
  });

  it('a client identifier URL: https with a path, no fragment, credentials or dot segments', () => {
    expect(isClientIdUrl('https://app.example/client.json', false)).toBe(true);
    for (const bad of [
      'https://app.example',
      'https://app.example/',
      'https://app.example/c#f',
      'https://u:p@app.example/c',
      'https://app.example/a/../c',
      'https://app.example/./c',
      'http://app.example/c',
      'http://127.0.0.1/c',
      'web-app',
    ])
      expect(isClientIdUrl(bad, false), bad).toBe(false);
    expect(isClientIdUrl('http://127.0.0.1:8/c', true)).toBe(true);
    expect(isClientIdUrl('http://app.example/c', true)).toBe(false);
  });
});

describe('cache', () => {
  it('max-age keeps a document, until it is over; no-store fetches every time', async () => {
    const cached = documents.document({}, { 'cache-control': 'public, max-age=60' });
    await authorizeWith(idp, cached);
    await authorizeWith(idp, cached);
    expect(documents.hitsOf(cached)).toBe(1);
    idp.server.clock.advance(61_000);
    await authorizeWith(idp, cached);
    expect(documents.hitsOf(cached)).toBe(2);
    const fresh = documents.document({}, { 'cache-control': 'no-store, max-age=60' });
    await authorizeWith(idp, fresh);
    await authorizeWith(idp, fresh);
    expect(documents.hitsOf(fresh)).toBe(2);
  });

  it('a refused document is never cached', async () => {
    const bad = documents.serve({ headers: { 'cache-control': 'max-age=60' }, body: '{}' });
    await authorizeWith(idp, bad);
    await authorizeWith(idp, bad);
    expect(documents.hitsOf(bad)).toBe(2);
  });

  it('Cache-Control as read', () => {
    expect(cacheSeconds(undefined)).toBe(0);
    expect(cacheSeconds('max-age=30')).toBe(30);
    expect(cacheSeconds('no-cache, max-age=30')).toBe(0);
    expect(cacheSeconds('max-age=999999')).toBe(3600);
    expect(cacheSeconds('max-age=abc')).toBe(0);
  });
});

function doc(clientId: string): Record<string, unknown> {
  return { client_id: clientId, redirect_uris: [CIMD_REDIRECT], token_endpoint_auth_method: 'none' };
}
