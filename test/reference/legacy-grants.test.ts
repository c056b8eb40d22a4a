/**
 * The deprecated grants, opt-in per client (SPEC grant table; RFC 9700 §2.1.2, §2.4): Resource
 * Owner Password (RFC 6749 §4.3) and Implicit (RFC 6749 §4.2, OIDC Core §3.2). Neither issues a
 * refresh token; discovery lists them only when some client enables them.
 */
import { JARM_RESPONSE_MODES } from '../../protocol/jarm.ts';
import { createHash } from 'node:crypto';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEGACY_CLIENT, SEEDED_USER, type ClientConfig } from '../../reference/index.ts';
import { SPA, startReference, WEB, type ReferenceClient } from '../support/reference-client.ts';
import { verifyPresentedAccessToken } from '../../reference/verify.ts';

const LEGACY_THIRD_PARTY: ClientConfig = {
  ...LEGACY_CLIENT,
  clientId: 'legacy-spa',
  clientSecret: undefined,
  firstParty: false,
  grantTypes: ['implicit'],
};
const PUBLIC_PASSWORD: ClientConfig = { ...LEGACY_THIRD_PARTY, clientId: 'legacy-public', grantTypes: ['password'] };

let idp: ReferenceClient;
let plain: ReferenceClient;
beforeAll(async () => {
  idp = await startReference({ clients: [WEB, SPA, LEGACY_CLIENT, LEGACY_THIRD_PARTY, PUBLIC_PASSWORD] });
  plain = await startReference();
});
afterAll(async () => {
  await Promise.all([idp.close(), plain.close()]);
});

const atHash = (token: string) => createHash('sha256').update(token).digest().subarray(0, 16).toString('base64url');

async function verifyIdToken(token: string | null | undefined, clientId: string) {
  const jwks = createLocalJWKSet((await idp.json('/jwks')) as unknown as JSONWebKeySet);
  return (await jwtVerify(String(token), jwks, { issuer: idp.issuer, audience: clientId })).payload;
}

describe('discovery', () => {
  it('lists neither grant nor the implicit response types when no client enables them', async () => {
    const discovery = await plain.json('/.well-known/openid-configuration');
    expect(discovery.grant_types_supported).not.toContain('password');
    expect(discovery.grant_types_supported).not.toContain('implicit');
    expect(discovery.grant_types_supported).toContain('authorization_code');
    expect(discovery.response_types_supported).toEqual(['code']);
    expect(discovery.response_modes_supported).toEqual(['query', 'form_post', ...JARM_RESPONSE_MODES]);
  });

  it('lists them when a client does (legacyClient: true seeds one)', async () => {
    const legacy = await startReference({ legacyClient: true });
    try {
      const discovery = await legacy.json('/.well-known/openid-configuration');
      expect(discovery.grant_types_supported).toEqual(
        expect.arrayContaining(['password', 'implicit', 'authorization_code']),
      );
      expect(discovery.response_types_supported).toEqual([
        'code',
        'token',
        'id_token',
        'id_token token',
        'code id_token',
        'code token',
        'code id_token token',
      ]);
      expect(discovery.response_modes_supported).toEqual(['query', 'fragment', 'form_post', ...JARM_RESPONSE_MODES]);
      expect(await legacy.server.context.findClient(LEGACY_CLIENT.clientId)).toBeDefined();
      expect(await plain.server.context.findClient(LEGACY_CLIENT.clientId)).toBeUndefined();
    } finally {
      await legacy.close();
    }
  });
});

describe('Resource Owner Password grant', () => {
  const passwordGrant = (
    fields: Record<string, string | undefined>,
    client: ClientConfig = LEGACY_CLIENT,
    json = false,
  ) =>
    idp.token(
      { grant_type: 'password', username: SEEDED_USER.username, password: SEEDED_USER.password, ...fields },
      { client, json },
    );

  it('issues an access token and, for openid, an ID token; never a refresh token', async () => {
    const result = await passwordGrant({ scope: 'openid email' });
    expect(result.status).toBe(200);
    expect(result.headers.get('cache-control')).toBe('no-store');
    expect(result.body).toMatchObject({ token_type: 'Bearer', scope: 'openid email', expires_in: 3600 });
    expect(result.body).not.toHaveProperty('refresh_token');
    const claims = await verifyIdToken(String(result.body.id_token), LEGACY_CLIENT.clientId);
    expect(claims).toMatchObject({
      sub: SEEDED_USER.sub,
      email: SEEDED_USER.claims.email,
      at_hash: atHash(String(result.body.access_token)),
    });
    await expect(
      verifyPresentedAccessToken(idp.server.context, String(result.body.access_token)).then((v) => v.claims),
    ).resolves.toMatchObject({ sub: SEEDED_USER.sub });
  });

  it("without openid there is no ID token; without scope the client's registered scope; JSON bodies too", async () => {
    expect((await passwordGrant({ scope: 'profile' })).body).not.toHaveProperty('id_token');
    const json = await passwordGrant({}, LEGACY_CLIENT, true);
    expect(json.status).toBe(200);
    expect(json.body.scope).toBe(LEGACY_CLIENT.allowedScope);
  });

  it.each([
    ['a wrong password', { password: 'not-her-password' }, 400, 'invalid_grant'],
    ['an unknown user', { username: 'mallory' }, 400, 'invalid_grant'],
    ['no username', { username: undefined }, 400, 'invalid_request'],
    ['no password', { password: undefined }, 400, 'invalid_request'],
    ["a scope beyond the client's", { scope: 'openid api:read' }, 400, 'invalid_scope'],
  ])('%s: %s', async (_name, fields, status, error) => {
    const result = await passwordGrant(fields);
    expect(result.status).toBe(status);
    expect(result.body).toMatchObject({ error, error_description: expect.any(String) });
    expect(result.body).not.toHaveProperty('access_token');
  });

  it('only for a client that enables it, and only a confidential one', async () => {
    expect((await passwordGrant({}, WEB)).body.error).toBe('unauthorized_client');
    expect((await passwordGrant({}, PUBLIC_PASSWORD)).body.error).toBe('unauthorized_client');
    const badSecret = await idp.token(
      { grant_type: 'password', username: SEEDED_USER.username, password: SEEDED_USER.password },
      { client: LEGACY_CLIENT, secret: 'wrong' },
    );
    expect([badSecret.status, badSecret.body.error]).toEqual([401, 'invalid_client']);
  });

  it('a server without a password client answers unauthorized_client, not unsupported_grant_type', async () => {
    const result = await plain.token({ grant_type: 'password', username: 'alice', password: 'x' }, { client: WEB });
    expect(result.body.error).toBe('unauthorized_client');
  });
});

describe('Implicit grant', () => {
  const implicit = (query: Record<string, string | undefined>, client: ClientConfig = LEGACY_CLIENT) =>
    idp.authorize({ client, query: { scope: 'openid', nonce: 'n-1', state: 'st-1', ...query } });

  it('response_type "id_token token": the tokens in the fragment, the ID token with nonce and at_hash', async () => {
    const { callback, params } = await implicit({ response_type: 'id_token token', scope: 'openid profile' });
    expect(callback?.search).toBe('');
    expect(callback?.href.startsWith(`${LEGACY_CLIENT.redirectUris[0]}#`)).toBe(true);
    expect(Object.fromEntries(params)).toMatchObject({
      token_type: 'Bearer',
      expires_in: '3600',
      state: 'st-1',
      scope: 'openid profile',
      iss: idp.issuer,
    });
    expect([...params.keys()]).not.toContain('refresh_token');
    expect([...params.keys()]).not.toContain('code');
    const claims = await verifyIdToken(params.get('id_token'), LEGACY_CLIENT.clientId);
    expect(claims).toMatchObject({
      nonce: 'n-1',
      sub: SEEDED_USER.sub,
      name: SEEDED_USER.claims.name,
      at_hash: atHash(String(params.get('access_token'))),
    });
    await expect(
      verifyPresentedAccessToken(idp.server.context, String(params.get('access_token'))).then((v) => v.claims),
    ).resolves.toMatchObject({ client_id: LEGACY_CLIENT.clientId });
  });

  it('response_type "token": an access token only; the parts of a response_type may come in any order', async () => {
    const token = await implicit({ response_type: 'token' });
    expect(token.params.has('access_token')).toBe(true);
    expect(token.params.has('id_token')).toBe(false);
    const reordered = await implicit({ response_type: 'token id_token' });
    expect(reordered.params.has('id_token')).toBe(true);
  });

  it('a third-party implicit client sees consent; a denial comes back in the fragment', async () => {
    const denied = await implicit({ response_type: 'id_token token' }, LEGACY_THIRD_PARTY);
    expect(denied.consentShown).toBe(true);
    const result = await idp.authorize({
      client: LEGACY_THIRD_PARTY,
      query: { response_type: 'token', scope: 'openid', nonce: 'n', state: 's' },
      decision: 'deny',
    });
    expect(result.callback?.search).toBe('');
    expect(Object.fromEntries(result.params)).toMatchObject({ error: 'access_denied', state: 's' });
  });

  it.each([
    ['no nonce', LEGACY_CLIENT, { response_type: 'id_token token', nonce: undefined }, 'invalid_request', 'fragment'],
    ['no nonce with token', LEGACY_CLIENT, { response_type: 'token', nonce: undefined }, 'invalid_request', 'fragment'],
    [
      'an ID token without openid',
      LEGACY_CLIENT,
      { response_type: 'id_token token', scope: 'profile' },
      'invalid_request',
      'fragment',
    ],
    [
      'response_mode=query',
      LEGACY_CLIENT,
      { response_type: 'token', response_mode: 'query' },
      'invalid_request',
      'fragment',
    ],
    ['a client without implicit', WEB, { response_type: 'token' }, 'unauthorized_client', 'fragment'],
    [
      'a code for the implicit-only client',
      LEGACY_THIRD_PARTY,
      { response_type: 'code' },
      'unauthorized_client',
      'query',
    ],
    [
      'a hybrid response for the implicit-only client',
      LEGACY_THIRD_PARTY,
      { response_type: 'code id_token' },
      'unauthorized_client',
      'fragment',
    ],
    [
      'a hybrid response for a code-only client',
      WEB,
      { response_type: 'code token' },
      'unauthorized_client',
      'fragment',
    ],
    [
      'no nonce with id_token',
      LEGACY_CLIENT,
      { response_type: 'id_token', nonce: undefined },
      'invalid_request',
      'fragment',
    ],
    [
      'no nonce, hybrid',
      LEGACY_CLIENT,
      { response_type: 'code id_token', nonce: undefined },
      'invalid_request',
      'fragment',
    ],
    [
      'an unsupported response_type',
      LEGACY_CLIENT,
      { response_type: 'code none' },
      'unsupported_response_type',
      'query',
    ],
    [
      'response_mode=fragment for a code',
      WEB,
      { response_type: 'code', response_mode: 'fragment' },
      'invalid_request',
      'query',
    ],
  ] as const)('%s: %s redirected in the %s', async (_name, client, query, error, mode) => {
    const { callback, params } = await implicit(query, client);
    expect(callback).toBeDefined();
    const inFragment = callback!.hash.length > 1;
    expect(inFragment ? 'fragment' : 'query').toBe(mode);
    expect(Object.fromEntries(params)).toMatchObject({ error, state: 'st-1', error_description: expect.any(String) });
    expect(params.has('access_token')).toBe(false);
  });

  it('an unregistered redirect_uri still gets an error page, never a redirect', async () => {
    const result = await implicit({ response_type: 'token', redirect_uri: 'https://attacker.example/cb' });
    expect(result.callback).toBeUndefined();
    expect(result.page?.status).toBe(400);
  });

  it('a client that does not enable it gets unauthorized_client, in the fragment', async () => {
    const result = await idp.authorize({ client: WEB, query: { response_type: 'token', scope: 'openid', nonce: 'n' } });
    expect(result.params.get('error')).toBe('unauthorized_client');
    expect(result.callback?.hash).not.toBe('');
  });

  it('a server without an implicit client refuses it', async () => {
    const result = await plain.authorize({
      client: WEB,
      query: { response_type: 'token', scope: 'openid', nonce: 'n' },
    });
    // Where no client enables the implicit grant, the server does not offer response_type=token at
    // all (discovery does not list it): unsupported_response_type, in the query like any code error.
    expect(result.params.get('error')).toBe('unsupported_response_type');
    expect(result.callback?.hash).toBe('');
  });
});

describe('Hybrid flow (OIDC Core §3.3) and the id_token response type', () => {
  const hybrid = (query: Record<string, string | undefined>) =>
    idp.authorize({ client: LEGACY_CLIENT, query: { scope: 'openid', nonce: 'n-2', state: 'st-2', ...query } });

  it.each([
    ['id_token', { code: false, token: false }],
    ['code id_token', { code: true, token: false }],
    ['code token', { code: true, token: true }],
    ['code id_token token', { code: true, token: true }],
  ] as const)('response_type "%s": in the fragment, c_hash and at_hash where they belong', async (type, has) => {
    const { callback, params } = await hybrid({ response_type: type });
    expect(callback?.search).toBe('');
    expect(params.has('code')).toBe(has.code);
    expect(params.has('access_token')).toBe(has.token);
    expect(params.has('refresh_token')).toBe(false);
    expect(params.has('id_token')).toBe(type.includes('id_token'));
    if (!type.includes('id_token')) return;
    const claims = await verifyIdToken(params.get('id_token'), LEGACY_CLIENT.clientId);
    expect(claims.nonce).toBe('n-2');
    expect(claims.c_hash).toBe(has.code ? atHash(String(params.get('code'))) : undefined);
    expect(claims.at_hash).toBe(has.token ? atHash(String(params.get('access_token'))) : undefined);
  });

  it('the hybrid code redeems at the token endpoint for an ID token with the nonce', async () => {
    const { params } = await hybrid({ response_type: 'code id_token' });
    const redeemed = await idp.redeem(String(params.get('code')), LEGACY_CLIENT);
    expect(redeemed.status).toBe(200);
    const claims = await verifyIdToken(String(redeemed.body.id_token), LEGACY_CLIENT.clientId);
    expect(claims.nonce).toBe('n-2');
  });
});

describe('form_post (OAuth 2.0 Form Post Response Mode §2)', () => {
  it.each([
    ['code', WEB, {}],
    ['code id_token token', LEGACY_CLIENT, { nonce: 'n-3' }],
  ] as const)('response_type %s: a page that posts the parameters to the redirect_uri', async (type, client, more) => {
    const query = { response_type: type, response_mode: 'form_post', scope: 'openid', state: 'st-3', ...more };
    const result = await idp.authorize({ client, query: type === 'code' ? { ...query, ...pkceQuery() } : query });
    expect(result.callback?.href).toBe(client.redirectUris[0]);
    expect(result.formPost?.method).toBe('POST');
    expect(result.formPost?.fields.get('state')).toBe('st-3');
    expect(result.formPost?.fields.has('code')).toBe(true);
    expect(result.page?.status).toBe(200);
    // Submitted by its body's onload handler, which the CSP allows by its hash alone (test/reference/page-variants).
    expect(result.page?.headers.get('content-security-policy')).toMatch(
      /script-src 'unsafe-hashes' 'sha256-[A-Za-z0-9+/]+=*'$/,
    );
    expect(result.page?.html).toContain('<body onload="document.forms[0].submit()">');
  });

  it('an error is form-posted too', async () => {
    const result = await idp.authorize({
      client: LEGACY_CLIENT,
      query: { response_type: 'id_token', response_mode: 'form_post', scope: 'openid', state: 'st-4' },
    });
    expect(result.formPost?.fields.get('error')).toBe('invalid_request');
    expect(result.formPost?.fields.get('state')).toBe('st-4');
  });

  it('an unknown response_mode is refused with invalid_request', async () => {
    const result = await idp.authorize({
      client: WEB,
      query: { response_type: 'code', response_mode: 'web_message', scope: 'openid', ...pkceQuery() },
    });
    expect(result.params.get('error')).toBe('invalid_request');
  });
});

function pkceQuery(): Record<string, string> {
  const verifier = createHash('sha256').update(String(Math.random())).digest('base64url');
  return { code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256' };
}
