/**
 * Proves the oidc-provider fixture is a working, soundly configured IdP, over plain HTTP: the
 * target config it hands out is enough to run discovery, client_credentials, the code + PKCE
 * flow through its login and consent pages, refresh rotation and the device flow.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  API_RESOURCE,
  startOidcProvider,
  type StartedOidcProvider,
  type TargetClient,
  type TargetConfig,
} from '../../interop/oidc-provider/provider.ts';
import { LoginSession, activateDevice, redirectAfterLogin, send } from '../support/form-login.ts';

interface Discovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  userinfo_endpoint: string;
  jwks_uri: string;
  device_authorization_endpoint: string;
  introspection_endpoint: string;
  code_challenge_methods_supported: string[];
  grant_types_supported: string[];
}

type Json = Record<string, unknown>;

function client(target: TargetConfig, role: keyof TargetConfig['clients']): TargetClient {
  const entry = target.clients[role];
  if (!entry) throw new Error(`the fixture's target has no ${role} client`);
  return entry;
}

/** A form POST authenticated as the client: HTTP Basic with a secret, client_id in the body without. */
async function post(
  url: string,
  who: TargetClient,
  params: Record<string, string>,
): Promise<{ status: number; body: Json; headers: Headers }> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  const body = new URLSearchParams(params);
  if (who.clientSecret) {
    const pair = `${encodeURIComponent(who.clientId)}:${encodeURIComponent(who.clientSecret)}`;
    headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
  } else {
    body.set('client_id', who.clientId);
  }
  const response = await fetch(url, { method: 'POST', headers, body });
  return { status: response.status, body: (await response.json()) as Json, headers: response.headers };
}

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

describe('oidc-provider fixture', () => {
  let idp: StartedOidcProvider;
  let discovery: Discovery;
  let jwks: JSONWebKeySet;

  beforeAll(async () => {
    idp = await startOidcProvider();
    discovery = (await (await fetch(`${idp.issuer}/.well-known/openid-configuration`)).json()) as Discovery;
    jwks = (await (await fetch(discovery.jwks_uri)).json()) as JSONWebKeySet;
  });
  afterAll(async () => {
    await idp?.close();
  });

  /** The authorization request URL for a client, with PKCE S256, state and nonce. */
  function authorizationUrl(who: TargetClient, extra: Record<string, string> = {}) {
    const { verifier, challenge } = pkce();
    const state = randomBytes(12).toString('base64url');
    const nonce = randomBytes(12).toString('base64url');
    const url = new URL(discovery.authorization_endpoint);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: who.clientId,
      redirect_uri: who.redirectUri ?? '',
      scope: who.scope ?? 'openid',
      state,
      nonce,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      ...extra,
    }).toString();
    return { url, verifier, state, nonce };
  }

  /** Logs alice in through the dev interaction pages and returns the redirect to redirect_uri. */
  async function authorize(who: TargetClient, url: URL): Promise<URL> {
    return redirectAfterLogin(url, who.redirectUri ?? '', { ...idp.target.user, ...idp.target.login });
  }

  async function codeFlowTokens(who: TargetClient, extra: Record<string, string> = {}) {
    const request = authorizationUrl(who, extra);
    const redirect = await authorize(who, request.url);
    const code = redirect.searchParams.get('code') ?? '';
    const token = await post(discovery.token_endpoint, who, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: who.redirectUri ?? '',
      code_verifier: request.verifier,
    });
    return { request, redirect, code, token };
  }

  it('answers discovery with the issuer it was started on, S256 only, and every grant the target needs', async () => {
    expect(discovery.issuer).toBe(idp.issuer);
    expect(idp.target.issuer).toBe(idp.issuer);
    expect(discovery.code_challenge_methods_supported).toEqual(['S256']);
    expect(discovery.grant_types_supported).toEqual(
      expect.arrayContaining([
        'authorization_code',
        'refresh_token',
        'client_credentials',
        'urn:ietf:params:oauth:grant-type:device_code',
      ]),
    );
    expect(discovery.grant_types_supported).not.toContain('implicit');
    // Its own signing key, public members only.
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: expect.any(String) });
    expect(jwks.keys[0]).not.toHaveProperty('d');
  });

  it('hands out a target config in the shape of docs/target-config.md, without an exchange client', () => {
    const { target } = idp;
    expect(target.tokenRequestEncoding).toBe('form');
    expect(target.login).toEqual({ usernameField: 'login', passwordField: 'password' }); // no driver: auto, the default
    expect(Object.keys(target.clients).sort()).toEqual([
      'confidential',
      'confidential2',
      'device',
      'keyed',
      'machine',
      'public',
    ]);
    expect(target.clients.public).not.toHaveProperty('clientSecret');
    expect(target.clients.confidential).toMatchObject({ authMethod: 'client_secret_basic', firstParty: true });
    expect(target.clients.public).toMatchObject({ authMethod: 'none', firstParty: false });
  });

  it('issues the machine client an API access token for client_credentials, with no refresh token', async () => {
    const machine = client(idp.target, 'machine');
    const { status, body, headers } = await post(discovery.token_endpoint, machine, {
      grant_type: 'client_credentials',
      scope: 'api:read',
    });
    expect(status).toBe(200);
    expect(headers.get('cache-control')).toBe('no-store');
    expect(body).toMatchObject({ access_token: expect.any(String), token_type: 'Bearer', scope: 'api:read' });
    expect(body).not.toHaveProperty('refresh_token');

    const introspection = await post(discovery.introspection_endpoint, machine, { token: String(body.access_token) });
    expect(introspection.body).toMatchObject({
      active: true,
      client_id: 'machine',
      scope: 'api:read',
      aud: API_RESOURCE,
    });

    const wider = await post(discovery.token_endpoint, machine, {
      grant_type: 'client_credentials',
      scope: 'api:read api:write',
    });
    expect(wider).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
  });

  it('runs the code + PKCE flow through the login and consent forms, then refreshes with rotation', async () => {
    const web = client(idp.target, 'confidential');
    const { request, redirect, token } = await codeFlowTokens(web, { prompt: 'consent' });
    expect(redirect.origin + redirect.pathname).toBe(web.redirectUri);
    expect(redirect.searchParams.get('state')).toBe(request.state);
    expect(redirect.searchParams.get('iss')).toBe(idp.issuer);

    expect(token.status).toBe(200);
    expect(token.body).toMatchObject({
      access_token: expect.any(String),
      token_type: 'Bearer',
      id_token: expect.any(String),
      refresh_token: expect.any(String),
    });
    const { payload } = await jwtVerify(String(token.body.id_token), createLocalJWKSet(jwks), {
      issuer: idp.issuer,
      audience: web.clientId,
      algorithms: ['RS256'],
    });
    expect(payload).toMatchObject({ sub: 'alice', nonce: request.nonce });

    const userinfo = await fetch(discovery.userinfo_endpoint, {
      headers: { authorization: `Bearer ${String(token.body.access_token)}` },
    });
    expect(userinfo.status).toBe(200);
    expect(await userinfo.json()).toMatchObject({ sub: 'alice', name: 'Alice Liddell', email: 'alice@example.test' });

    const first = String(token.body.refresh_token);
    const refreshed = await post(discovery.token_endpoint, web, { grant_type: 'refresh_token', refresh_token: first });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body).toMatchObject({
      access_token: expect.any(String),
      token_type: 'Bearer',
      refresh_token: expect.any(String),
    });
    expect(refreshed.body.refresh_token).not.toBe(first);
    expect(refreshed.body.access_token).not.toBe(token.body.access_token);

    // The rotated-out token is refused, and replaying it revokes the newest one too.
    const replay = await post(discovery.token_endpoint, web, { grant_type: 'refresh_token', refresh_token: first });
    expect(replay).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const newest = await post(discovery.token_endpoint, web, {
      grant_type: 'refresh_token',
      refresh_token: String(refreshed.body.refresh_token),
    });
    expect(newest).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('drops offline_access from a code flow without prompt=consent (OIDC Core §11), so no refresh token', async () => {
    const web = client(idp.target, 'confidential');
    const { token } = await codeFlowTokens(web);
    expect(token.status).toBe(200);
    expect(token.body).toHaveProperty('id_token');
    expect(token.body).not.toHaveProperty('refresh_token');
    expect(String(token.body.scope).split(' ')).not.toContain('offline_access');
  });

  it('gives the public client rotating refresh tokens under the same rule', async () => {
    const spa = { ...client(idp.target, 'public'), scope: 'openid profile offline_access' };
    const { token } = await codeFlowTokens(spa, { prompt: 'consent' });
    expect(token.body).toMatchObject({ refresh_token: expect.any(String), expires_in: 600 });
    const refreshed = await post(discovery.token_endpoint, spa, {
      grant_type: 'refresh_token',
      refresh_token: String(token.body.refresh_token),
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(token.body.refresh_token);
  });

  it('requires PKCE with S256 from every client, confidential ones included', async () => {
    const web = client(idp.target, 'confidential');
    const errorOf = async (url: URL) => {
      const response = await send(new LoginSession(), url);
      await response.body?.cancel();
      const location = new URL(response.headers.get('location') ?? '', idp.issuer);
      expect(location.href.startsWith(`${web.redirectUri}?`)).toBe(true);
      return location.searchParams.get('error');
    };
    const withoutChallenge = authorizationUrl(web).url;
    withoutChallenge.searchParams.delete('code_challenge');
    withoutChallenge.searchParams.delete('code_challenge_method');
    expect(await errorOf(withoutChallenge)).toBe('invalid_request');
    expect(await errorOf(authorizationUrl(web, { code_challenge_method: 'plain' }).url)).toBe('invalid_request');
  });

  it('serves its login page with anti-framing headers', async () => {
    const jar = new LoginSession();
    const start = await send(jar, authorizationUrl(client(idp.target, 'confidential')).url);
    await start.body?.cancel();
    const page = await send(jar, new URL(start.headers.get('location') ?? '', idp.issuer));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('type="password"');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('content-security-policy')).toBe("frame-ancestors 'none'");
  });

  it('lets at most one of several parallel redemptions of a code succeed', async () => {
    const web = client(idp.target, 'confidential');
    const request = authorizationUrl(web);
    const code = (await authorize(web, request.url)).searchParams.get('code') ?? '';
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        post(discovery.token_endpoint, web, {
          grant_type: 'authorization_code',
          code,
          redirect_uri: web.redirectUri ?? '',
          code_verifier: request.verifier,
        }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const refused of results.filter((r) => r.status !== 200)) expect(refused.body.error).toBe('invalid_grant');
  });

  it('runs the device flow: user code and verification URI, pending, approval through the pages, tokens', async () => {
    const device = client(idp.target, 'device');
    const authorization = await post(discovery.device_authorization_endpoint, device, { scope: device.scope ?? '' });
    expect(authorization.status).toBe(200);
    expect(authorization.body).toMatchObject({
      device_code: expect.any(String),
      user_code: expect.any(String),
      verification_uri: `${idp.issuer}/device`,
      verification_uri_complete: expect.any(String),
      expires_in: expect.any(Number),
    });
    const poll = () =>
      post(discovery.token_endpoint, device, {
        grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
        device_code: String(authorization.body.device_code),
      });
    expect(await poll()).toMatchObject({ status: 400, body: { error: 'authorization_pending' } });

    const end = await activateDevice(
      {
        verificationUri: String(authorization.body.verification_uri),
        verificationUriComplete: String(authorization.body.verification_uri_complete),
        userCode: String(authorization.body.user_code),
        decision: 'approve',
      },
      { ...idp.target.user, ...idp.target.login },
    );
    expect(end).toMatchObject({ decided: true, status: 200, headline: 'Sign-in Success' });

    const tokens = await poll();
    expect(tokens.status).toBe(200);
    expect(tokens.body).toMatchObject({
      access_token: expect.any(String),
      id_token: expect.any(String),
      refresh_token: expect.any(String),
    });
    expect(await poll()).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });
});

describe('oidc-provider fixture with JWT API access tokens', () => {
  let idp: StartedOidcProvider;
  beforeAll(async () => {
    idp = await startOidcProvider({ apiAccessTokenFormat: 'jwt' });
  });
  afterAll(async () => {
    await idp?.close();
  });

  it('issues client_credentials tokens as RFC 9068 JWTs signed by its JWKS key', async () => {
    const machine = client(idp.target, 'machine');
    const { status, body } = await post(`${idp.issuer}/token`, machine, {
      grant_type: 'client_credentials',
      scope: 'api:read',
    });
    expect(status).toBe(200);
    const accessToken = String(body.access_token);
    expect(decodeProtectedHeader(accessToken)).toMatchObject({ typ: 'at+jwt', alg: 'RS256' });
    const jwks = (await (await fetch(`${idp.issuer}/jwks`)).json()) as JSONWebKeySet;
    const { payload } = await jwtVerify(accessToken, createLocalJWKSet(jwks), {
      issuer: idp.issuer,
      audience: API_RESOURCE,
      typ: 'at+jwt',
    });
    expect(payload).toMatchObject({ client_id: 'machine', scope: 'api:read' });
  });
});
