/**
 * End to end with a certified relying-party library (openid-client 6): discovery, the code flow
 * through the real login page, then userinfo, introspection and revocation (after which
 * introspection says inactive and refresh fails), and token exchange by the exchange client.
 */
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEEDED_CLIENTS, SEEDED_USER } from '../../reference/index.ts';
import { redirectAfterLogin } from '../support/form-login.ts';
import { ACCESS_TOKEN_TYPE, startReference, TOKEN_EXCHANGE, type RunningReference } from '../support/reference.ts';

const web = SEEDED_CLIENTS.confidential;
const exchanger = SEEDED_CLIENTS.exchange;
let ref: RunningReference;
let webConfig: client.Configuration;
let exchangeConfig: client.Configuration;

async function configure(clientId: string, secret: string): Promise<client.Configuration> {
  return client.discovery(new URL(ref.issuer), clientId, undefined, client.ClientSecretBasic(secret), {
    execute: [client.allowInsecureRequests],
  });
}

/** The code flow as openid-client drives it, with the login page filled in over HTTP. */
async function signIn(scope: string) {
  const redirectUri = web.redirectUris[0] ?? '';
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(webConfig, {
    redirect_uri: redirectUri,
    scope,
    state,
    nonce,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const end = await redirectAfterLogin(url, redirectUri, SEEDED_USER);
  return client.authorizationCodeGrant(webConfig, end, {
    pkceCodeVerifier: verifier,
    expectedState: state,
    expectedNonce: nonce,
  });
}

beforeAll(async () => {
  ref = await startReference();
  webConfig = await configure(web.clientId, web.clientSecret);
  exchangeConfig = await configure(exchanger.clientId, exchanger.clientSecret);
});
afterAll(() => ref?.close());

describe('openid-client 6 against the reference', () => {
  it('discovers userinfo, introspection, revocation and token exchange', () => {
    const metadata = webConfig.serverMetadata();
    expect(metadata).toMatchObject({
      userinfo_endpoint: `${ref.issuer}/userinfo`,
      introspection_endpoint: `${ref.issuer}/introspect`,
      introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      revocation_endpoint: `${ref.issuer}/revoke`,
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    });
    expect(metadata.grant_types_supported).toContain(TOKEN_EXCHANGE);
  });

  it('fetches userinfo, introspects, revokes; then the token is inactive and refresh fails', async () => {
    const tokens = await signIn('openid profile email offline_access api:read');
    const sub = tokens.claims()?.sub ?? '';
    expect(sub).toBe(SEEDED_USER.sub);

    const info = await client.fetchUserInfo(webConfig, tokens.access_token, sub);
    expect(info).toStrictEqual({
      sub,
      name: SEEDED_USER.claims.name,
      family_name: SEEDED_USER.claims.family_name,
      picture: SEEDED_USER.claims.picture,
      email: SEEDED_USER.claims.email,
      email_verified: true,
    });

    const active = await client.tokenIntrospection(webConfig, tokens.access_token);
    expect(active).toMatchObject({ active: true, sub, client_id: web.clientId, token_type: 'Bearer', iss: ref.issuer });
    const refreshActive = await client.tokenIntrospection(webConfig, tokens.refresh_token ?? '', {
      token_type_hint: 'refresh_token',
    });
    expect(refreshActive.active).toBe(true);

    await client.tokenRevocation(webConfig, tokens.refresh_token ?? '', { token_type_hint: 'refresh_token' });

    expect(await client.tokenIntrospection(webConfig, tokens.access_token)).toStrictEqual({ active: false });
    expect(await client.tokenIntrospection(webConfig, tokens.refresh_token ?? '')).toStrictEqual({ active: false });
    await expect(client.refreshTokenGrant(webConfig, tokens.refresh_token ?? '')).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    await expect(client.fetchUserInfo(webConfig, tokens.access_token, sub)).rejects.toMatchObject({ status: 401 });
  });

  it("exchanges a user's token for a narrower one, with the exchange client", async () => {
    const tokens = await signIn('openid api:read');
    const exchanged = await client.genericGrantRequest(exchangeConfig, TOKEN_EXCHANGE, {
      subject_token: tokens.access_token,
      subject_token_type: ACCESS_TOKEN_TYPE,
      requested_token_type: ACCESS_TOKEN_TYPE,
      scope: 'api:read',
    });
    expect(exchanged).toMatchObject({ token_type: 'bearer', issued_token_type: ACCESS_TOKEN_TYPE, scope: 'api:read' });
    expect(exchanged.refresh_token).toBeUndefined();
    const described = await client.tokenIntrospection(exchangeConfig, exchanged.access_token);
    expect(described).toMatchObject({
      active: true,
      sub: SEEDED_USER.sub,
      client_id: exchanger.clientId,
      scope: 'api:read',
    });

    await expect(
      client.genericGrantRequest(exchangeConfig, TOKEN_EXCHANGE, {
        subject_token: tokens.access_token,
        subject_token_type: ACCESS_TOKEN_TYPE,
        scope: 'api:read api:write',
      }),
    ).rejects.toMatchObject({ error: 'invalid_scope' });
  });
});
