/**
 * The OpenAuth interop module's set-up does what interop/openauth/ says, so the catalog's verdicts on it judge
 * OpenAuth 0.4.3 and not the set-up: its metadata, the exact-match allow table in place of the default one (a
 * registered client reaches the sign-in page, an unknown client_id does not), and the test user registered at start
 * (the sign-in gives a code, which redeems). Over plain HTTP on 127.0.0.1; skipped when npm ci cannot run here.
 */
import { describe, expect, it } from 'vitest';
import idp from '../../interop/openauth/index.ts';
import { useStartedIdp } from './npm-idp.ts';

interface Client {
  clientId: string;
  redirectUri: string;
}

const on = useStartedIdp<Client>(idp, 180_000);

const authorize = (clientId: string, redirectUri: string) => {
  const query = { client_id: clientId, redirect_uri: redirectUri, response_type: 'code', state: 'st-1' };
  return `${on.issuer}/authorize?${new URLSearchParams(query)}`;
};

describe('OpenAuth 0.4.3 as interop/openauth sets it up', () => {
  it('publishes RFC 8414 metadata for its issuer', async (ctx) => {
    if (on.unavailable) ctx.skip(on.unavailable);
    const doc = (await (await fetch(`${on.issuer}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >;
    expect(doc).toMatchObject({ issuer: on.issuer, token_endpoint: `${on.issuer}/token` });
  });

  it('sends a registered client to the sign-in page and no unknown client_id on a loopback URI', async (ctx) => {
    if (on.unavailable) ctx.skip(on.unavailable);
    const known = await fetch(authorize(on.clients.public!.clientId, on.clients.public!.redirectUri), {
      redirect: 'manual',
    });
    expect(known.headers.get('location')).toBe('/password/authorize');
    // The default allow() would accept any client_id with a loopback redirect URI; the table does not.
    const unknown = await fetch(authorize('not-registered', 'http://127.0.0.1:9/callback/not-registered'), {
      redirect: 'manual',
    });
    expect(unknown.headers.get('location') ?? '').toContain('error=unauthorized_client');
    expect(unknown.headers.get('location') ?? '').not.toContain('code=');
  });

  it('signs the user registered at start in, and the code redeems for tokens', async (ctx) => {
    if (on.unavailable) ctx.skip(on.unavailable);
    const client = on.clients.public!;
    const first = await fetch(authorize(client.clientId, client.redirectUri), { redirect: 'manual' });
    const cookie = first.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const signIn = await fetch(`${on.issuer}/password/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: on.user.username, password: on.user.password }),
    });
    const back = new URL(signIn.headers.get('location') ?? 'http://invalid/');
    expect(back.origin + back.pathname).toBe(client.redirectUri);
    const code = back.searchParams.get('code');
    expect(code).toBeTruthy();
    const token = await fetch(`${on.issuer}/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: code!,
        client_id: client.clientId,
        redirect_uri: client.redirectUri,
      }),
    });
    expect(token.status).toBe(200);
    expect(Object.keys((await token.json()) as object).sort()).toEqual(['access_token', 'expires_in', 'refresh_token']);
  });
});
