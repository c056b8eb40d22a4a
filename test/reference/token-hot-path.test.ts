/**
 * The token endpoint's hot route (issue 32): POST /token exactly is answered before the router, and must answer as the
 * router's route does (other spellings of the path still go through the router); the client secret's digest, made once
 * per client, follows a changed secret.
 */
import type { Context } from 'koa';
import { describe, expect, it } from 'vitest';
import { Flaws, type ClientConfig } from '../../reference/index.ts';
import { authenticateClient } from '../../reference/http/client-auth.ts';
import { OAuthError } from '../../reference/oauth-error.ts';
import { basic, claimsOf, MACHINE, useServer } from './helpers.ts';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const HEADERS = [
  'cache-control',
  'pragma',
  'x-content-type-options',
  'referrer-policy',
  'content-type',
  'www-authenticate',
];

async function post(url: string, body: string, authorization?: string) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...FORM, ...(authorization === undefined ? {} : { authorization }) },
    body,
  });
  return {
    status: res.status,
    headers: Object.fromEntries(HEADERS.map((name) => [name, res.headers.get(name)])),
    json: (await res.json()) as Record<string, unknown>,
  };
}

describe('POST /token, the hot route and the router', () => {
  const ctx = useServer();
  const auth = basic(MACHINE.clientId, MACHINE.clientSecret!);
  const cc = `grant_type=client_credentials&scope=${encodeURIComponent(MACHINE.allowedScope)}`;

  it('answers a token and each error with the same status, headers and body either way', async () => {
    // /token/ (a trailing slash) is not the hot route's exact path: @koa/router matches it (strict off).
    const cases: [string, string | undefined][] = [
      [cc, auth],
      [cc, basic(MACHINE.clientId, 'wrong')],
      ['grant_type=nope', auth],
      [`${cc}&scope=again`, auth],
      ['', auth],
    ];
    for (const [body, authorization] of cases) {
      const hot = await post(`${ctx.issuer}/token`, body, authorization);
      const routed = await post(`${ctx.issuer}/token/`, body, authorization);
      if (hot.status === 200) {
        expect(routed.status).toBe(200);
        expect(claimsOf(hot.json.access_token)).toMatchObject({
          client_id: MACHINE.clientId,
          scope: MACHINE.allowedScope,
        });
        expect(Object.keys(routed.json).sort()).toEqual(Object.keys(hot.json).sort());
        expect(routed.headers).toEqual(hot.headers);
      } else {
        expect(routed, body).toEqual(hot);
      }
    }
    expect((await post(`${ctx.issuer}/token`, cc, auth)).headers).toMatchObject({
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    });
  });

  it('leaves other methods on /token to the router (405 as an RFC error body)', async () => {
    const res = await fetch(`${ctx.issuer}/token`);
    expect(res.status).toBe(405);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_request');
  });
});

describe('client secret digests', () => {
  const fakeCtx = (authorization: string) => ({
    get: (name: string) => (name === 'authorization' ? authorization : ''),
  });
  const attempt = (client: ClientConfig, secret: string) =>
    authenticateClient(
      fakeCtx(basic(client.clientId, secret)) as unknown as Context,
      {},
      async (id) => (id === client.clientId ? client : undefined),
      new Flaws(),
    ).then(
      (result) => result.method,
      (error: unknown) => (error instanceof OAuthError ? error.error : 'other'),
    );

  it('accept the secret a client has now, not the one it had when first digested', async () => {
    const client: { -readonly [K in keyof ClientConfig]: ClientConfig[K] } = {
      clientId: 'rotating',
      clientSecret: 'first-secret',
      redirectUris: [],
      allowedScope: 'api:read',
      grantTypes: ['client_credentials'],
      firstParty: true,
      name: 'Rotating',
    };
    expect(await attempt(client, 'first-secret')).toBe('client_secret_basic');
    expect(await attempt(client, 'second-secret')).toBe('invalid_client');
    client.clientSecret = 'second-secret';
    expect(await attempt(client, 'second-secret')).toBe('client_secret_basic');
    expect(await attempt(client, 'first-secret')).toBe('invalid_client');
  });
});
