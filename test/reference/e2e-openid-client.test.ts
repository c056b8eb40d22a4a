/**
 * End to end with a certified OpenID Connect relying-party library (openid-client 6), used with
 * its defaults; the only relaxation is allowing plain http to 127.0.0.1. The user logs in
 * through the reference's real login (and consent) pages over HTTP.
 */
import * as client from 'openid-client';
import { describe, expect, it } from 'vitest';
import { ALICE, browse, MACHINE, SPA, useServer, WEB } from './helpers.ts';

const insecure = { execute: [client.allowInsecureRequests] };

describe('openid-client against the reference server', () => {
  const ctx = useServer();

  /** Authorization code + PKCE through the real pages; returns openid-client's token response. */
  async function codeFlow(config: client.Configuration, redirectUri: string, scope: string) {
    const pkceCodeVerifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope,
      state,
      nonce,
      code_challenge: await client.calculatePKCECodeChallenge(pkceCodeVerifier),
      code_challenge_method: 'S256',
    });
    const { location } = await browse(url.href);
    expect(location?.startsWith(redirectUri)).toBe(true);
    return client.authorizationCodeGrant(config, new URL(location!), {
      pkceCodeVerifier,
      expectedState: state,
      expectedNonce: nonce,
    });
  }

  it('discovers the server', async () => {
    const config = await client.discovery(new URL(ctx.issuer), WEB.clientId, WEB.clientSecret, undefined, insecure);
    const metadata = config.serverMetadata();
    expect(metadata.issuer).toBe(ctx.issuer);
    expect(metadata.token_endpoint).toBe(`${ctx.issuer}/token`);
    expect(metadata.supportsPKCE()).toBe(true);
  });

  it('client credentials', async () => {
    const config = await client.discovery(
      new URL(ctx.issuer),
      MACHINE.clientId,
      MACHINE.clientSecret,
      undefined,
      insecure,
    );
    const tokens = await client.clientCredentialsGrant(config, { scope: 'api:read' });
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.access_token).toEqual(expect.any(String));
    expect(tokens.refresh_token).toBeUndefined();
    expect(tokens.expiresIn()).toBeGreaterThan(0);
  });

  it('code + PKCE for the confidential client, then refresh rotation with the replay refused', async () => {
    const config = await client.discovery(new URL(ctx.issuer), WEB.clientId, WEB.clientSecret, undefined, insecure);
    const tokens = await codeFlow(config, WEB.redirectUri, 'openid profile email offline_access');
    expect(tokens.claims()).toMatchObject({
      iss: ctx.issuer,
      sub: ALICE.sub,
      aud: WEB.clientId,
      email: ALICE.claims.email,
    });
    expect(tokens.scope).toBe('openid profile email offline_access');
    const first = tokens.refresh_token!;
    expect(first).toEqual(expect.any(String));

    const rotated = await client.refreshTokenGrant(config, first);
    expect(rotated.refresh_token).toEqual(expect.any(String));
    expect(rotated.refresh_token).not.toBe(first);
    expect(rotated.access_token).not.toBe(tokens.access_token);
    expect(rotated.claims()?.sub).toBe(ALICE.sub);

    await expect(client.refreshTokenGrant(config, first)).rejects.toMatchObject({ error: 'invalid_grant' });
    // The replay revoked the family: the newest token is dead too.
    await expect(client.refreshTokenGrant(config, rotated.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('code + PKCE for the confidential client with client_secret_basic', async () => {
    const config = await client.discovery(
      new URL(ctx.issuer),
      WEB.clientId,
      undefined,
      client.ClientSecretBasic(WEB.clientSecret),
      insecure,
    );
    const tokens = await codeFlow(config, WEB.redirectUri, 'openid');
    expect(tokens.claims()?.sub).toBe(ALICE.sub);
    const rotated = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
  });

  it('code + PKCE for the public (third-party) client, through the consent page, then refresh', async () => {
    const config = await client.discovery(new URL(ctx.issuer), SPA.clientId, undefined, client.None(), insecure);
    const tokens = await codeFlow(config, SPA.redirectUri, 'openid profile offline_access');
    expect(tokens.claims()).toMatchObject({ sub: ALICE.sub, aud: SPA.clientId, name: ALICE.claims.name });
    expect(tokens.claims()).not.toHaveProperty('email');
    const rotated = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
    await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('a wrong PKCE verifier is refused to the library as invalid_grant', async () => {
    const config = await client.discovery(new URL(ctx.issuer), SPA.clientId, undefined, client.None(), insecure);
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: SPA.redirectUri,
      scope: 'openid',
      state,
      code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    });
    const { location } = await browse(url.href);
    await expect(
      client.authorizationCodeGrant(config, new URL(location!), {
        pkceCodeVerifier: client.randomPKCECodeVerifier(),
        expectedState: state,
      }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
  });
});
