/**
 * The better-auth interop module's set-up does what interop/better-auth/ says, so the catalog's verdicts on it judge
 * better-auth 1.7.5 and its oauth-provider plugin, not the set-up: the issuer under /api/auth with RS256 ID tokens and
 * both metadata documents, every client role created through the admin API, and the headless pages (the sign-in form
 * posting to better-auth with the signed query, the consent page's Allow and Deny). Over plain HTTP on 127.0.0.1;
 * skipped when npm ci cannot run here.
 */
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import idp from '../../interop/better-auth/index.ts';
import { useStartedIdp } from './npm-idp.ts';

interface Client {
  clientId: string;
  clientSecret?: string;
  redirectUri?: string;
}

const on = useStartedIdp<Client>(idp, 300_000);

/** The text of the hidden oauth_query field of a page. */
const oauthQuery = (page: string) =>
  (/name="oauth_query" value="([^"]*)"/.exec(page)?.[1] ?? '').replaceAll('&amp;', '&').replaceAll('&quot;', '"');

/**
 * A browser of one: its cookies carried along, redirects not followed. fetch sends Sec-Fetch-Mode: cors whatever it
 * is told, and better-auth answers a request that is not a navigation with its redirect as JSON ({ url }) instead of
 * a 302: `next` reads either.
 */
function browser() {
  const jar = new Map<string, string>();
  return async (url: string, form?: Record<string, string>) => {
    const res = await fetch(new URL(url, on.issuer), {
      redirect: 'manual',
      method: form ? 'POST' : 'GET',
      headers: {
        cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(form ? { origin: new URL(on.issuer).origin, 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(form ? { body: new URLSearchParams(form) } : {}),
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair = ''] = c.split(';');
      jar.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
    }
    return res;
  };
}

/** Where an answer sends the browser: its Location, or better-auth's JSON redirect. */
async function next(res: Response): Promise<string> {
  const location = res.headers.get('location');
  if (location) return location;
  const body: unknown = await res.json();
  const to =
    body && typeof body === 'object' ? Object.entries(body).find(([k]) => k === 'url' || k === 'redirect_uri') : [];
  return typeof to?.[1] === 'string' ? to[1] : '';
}

/**
 * The code flow as `role`: signs in on the set-up's page and answers its consent page with `accept` (better-auth
 * remembers a consent given, so each client is asked once); better-auth's final redirect.
 */
async function codeFlow(role: string, accept: 'true' | 'false') {
  const client = on.clients[role]!;
  const verifier = randomBytes(32).toString('base64url');
  const go = browser();
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: client.redirectUri!,
    scope: 'openid profile',
    state: 'st-1',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  });
  const toLogin = await go(`${on.issuer}/oauth2/authorize?${query}`);
  const login = await (await go(await next(toLogin))).text();
  expect(login).toContain('action="/api/auth/sign-in/email"');
  const signIn = await go('/api/auth/sign-in/email', {
    email: on.user.username,
    password: on.user.password,
    oauth_query: oauthQuery(login),
  });
  const toConsent = await next(signIn);
  expect(new URL(toConsent, on.issuer).pathname).toBe('/consent');
  const consent = await go(toConsent);
  expect(consent.headers.get('x-frame-options')).toBe('DENY');
  const answer = await go('/consent', { accept, oauth_query: oauthQuery(await consent.text()) });
  expect(answer.status).toBe(303);
  return { client, verifier, back: new URL(answer.headers.get('location')!) };
}

describe('better-auth 1.7.5 as interop/better-auth sets it up', () => {
  it('is an OpenID provider at /api/auth with RS256 ID tokens, and publishes RFC 8414 metadata too', async (ctx) => {
    if (on.unavailable) ctx.skip(on.unavailable);
    const origin = new URL(on.issuer).origin;
    expect(on.issuer).toBe(`${origin}/api/auth`);
    const oidc = (await (await fetch(`${on.issuer}/.well-known/openid-configuration`)).json()) as Record<
      string,
      unknown
    >;
    expect(oidc).toMatchObject({ issuer: on.issuer, id_token_signing_alg_values_supported: ['RS256'] });
    expect(oidc.registration_endpoint).toBeUndefined();
    const rfc8414 = await fetch(`${origin}/.well-known/oauth-authorization-server/api/auth`);
    expect(((await rfc8414.json()) as { issuer: string }).issuer).toBe(on.issuer);
  });

  it('has every client role the admin API created, secrets only for the confidential ones', (ctx) => {
    if (on.unavailable) ctx.skip(on.unavailable);
    expect(Object.keys(on.clients).sort().join(' ')).toBe('confidential confidential2 device keyed machine public');
    expect(on.clients.public!.clientSecret).toBeUndefined();
    expect(on.clients.confidential!.clientSecret).toBeTruthy();
  });

  it('gives a code with iss after the sign-in page and Allow, which redeems for tokens', async (ctx) => {
    if (on.unavailable) ctx.skip(on.unavailable);
    const { client, verifier, back } = await codeFlow('confidential', 'true');
    expect(back.origin + back.pathname).toBe(client.redirectUri);
    expect(back.searchParams.get('iss')).toBe(on.issuer);
    const basic = Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64');
    const token = await fetch(`${on.issuer}/oauth2/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}` },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: back.searchParams.get('code')!,
        redirect_uri: client.redirectUri!,
        code_verifier: verifier,
      }),
    });
    expect(token.status).toBe(200);
    expect(await token.json()).toHaveProperty('id_token');
  });

  it('sends access_denied with the state when the user denies (the public client)', async (ctx) => {
    if (on.unavailable) ctx.skip(on.unavailable);
    const { back } = await codeFlow('public', 'false');
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('st-1');
  });
});
