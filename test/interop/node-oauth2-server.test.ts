/**
 * The @node-oauth/oauth2-server interop module: the minimal server around the library does what its
 * documentation describes, so the catalog's verdicts on it judge the library. Over plain HTTP: the RFC
 * 8414 document, sign-in and consent (Allow gives a code, Deny gives access_denied), the code + PKCE
 * exchange, client credentials, and the wrapper's own pages' headers. Everything in-process, on 127.0.0.1.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningIdp } from '../../interop/idp.ts';
import idp from '../../interop/node-oauth2-server/index.ts';
import { freePort } from '../../interop/support.ts';

interface Client {
  clientId: string;
  clientSecret?: string;
  redirectUri: string;
}

let running: RunningIdp;
let issuer: string;
let clients: Record<string, Client>;
let user: { username: string; password: string };

beforeAll(async () => {
  running = await idp.start({ port: await freePort(), workDir: '' });
  const t = running.targetConfig as { issuer: string; clients: Record<string, Client>; user: typeof user };
  ({ issuer, clients, user } = t);
}, 30_000);
afterAll(() => running?.stop());

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields),
});

/** A browser of one: a cookie jar of the wrapper's one session cookie, redirects not followed. */
function browser() {
  let cookie = '';
  return async (url: string, init: RequestInit = {}) => {
    const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...init.headers, cookie } });
    const set = res.headers.get('set-cookie');
    if (set) cookie = set.split(';')[0]!;
    return res;
  };
}

/** Signs in and answers the consent page with `allowed`; the library's redirect. */
async function authorize(client: Client, allowed: 'true' | 'false', extra: Record<string, string> = {}) {
  const go = browser();
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    scope: 'profile',
    state: 'st-1',
    ...extra,
  });
  const login = await go(`${issuer}/authorize?${query}`);
  expect(await login.text()).toContain('name="password"');
  const signedIn = await go(`${issuer}/login`, form({ return: `/authorize?${query}`, ...user }));
  expect(signedIn.status).toBe(303);
  const consent = await go(`${issuer}${signedIn.headers.get('location')}`);
  const page = await consent.text();
  expect(consent.headers.get('x-frame-options')).toBe('DENY');
  expect(consent.headers.get('referrer-policy')).toBe('no-referrer');
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1];
  expect(csrf, page).toBeDefined();
  const answer = await go(`${issuer}/authorize?${query}`, form({ csrf: csrf!, allowed }));
  expect(answer.status).toBe(302);
  return new URL(answer.headers.get('location')!);
}

describe('@node-oauth/oauth2-server in its minimal server', () => {
  it('publishes RFC 8414 metadata for its issuer, with no OpenID Connect in it', async () => {
    const res = await fetch(`${issuer}/.well-known/oauth-authorization-server`);
    const doc = (await res.json()) as Record<string, unknown>;
    expect(doc).toMatchObject({
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      code_challenge_methods_supported: ['S256'],
    });
    expect(doc.scopes_supported).not.toContain('openid');
    expect(doc).not.toHaveProperty('jwks_uri');
  });

  it('gives a code after sign-in and Allow, and tokens for it with the PKCE verifier', async () => {
    const client = clients.confidential!;
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const back = await authorize(client, 'true', { code_challenge: challenge, code_challenge_method: 'S256' });
    expect(back.origin + back.pathname).toBe(client.redirectUri);
    expect(back.searchParams.get('state')).toBe('st-1');
    const code = back.searchParams.get('code');
    expect(code).toBeTruthy();
    const basic = `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`;
    const res = await fetch(`${issuer}/token`, {
      ...form({
        grant_type: 'authorization_code',
        code: code!,
        redirect_uri: client.redirectUri,
        code_verifier: verifier,
      }),
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ token_type: 'Bearer', scope: 'profile' });
    expect(typeof body.access_token).toBe('string');
  });

  it('sends access_denied to the redirect URI when the user denies', async () => {
    const back = await authorize(clients.public!, 'false');
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('st-1');
  });

  it('issues a client_credentials token to the machine client and refuses a wrong secret', async () => {
    const machine = clients.machine!;
    const token = (secret: string) =>
      fetch(`${issuer}/token`, {
        ...form({ grant_type: 'client_credentials', scope: 'api:read' }),
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${machine.clientId}:${secret}`).toString('base64')}`,
        },
      });
    const ok = await token(machine.clientSecret!);
    expect(ok.status).toBe(200);
    const bad = await token('wrong');
    expect(bad.status).toBe(401);
    expect(((await bad.json()) as { error: string }).error).toBe('invalid_client');
  });
});
