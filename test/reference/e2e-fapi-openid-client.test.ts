/**
 * PAR, DPoP and private_key_jwt end to end with openid-client 6 (which supports all three),
 * against the default reference and against the reference with its FAPI 2.0 settings
 * (createReferenceServer({ profile: 'fapi2' })). The user logs in through the real pages.
 */
import * as client from 'openid-client';
import { describe, expect, it } from 'vitest';
import { SEEDED_CLIENTS, SEEDED_KEYED_PRIVATE_JWK } from '../../reference/index.ts';
import { ALICE, browse, useServer } from './helpers.ts';

const insecure = { execute: [client.allowInsecureRequests] };
const KEYED = { ...SEEDED_CLIENTS.keyed, redirectUri: SEEDED_CLIENTS.keyed.redirectUris[0]! };

async function keyedConfig(issuer: string): Promise<client.Configuration> {
  const key = await crypto.subtle.importKey(
    'jwk',
    { ...SEEDED_KEYED_PRIVATE_JWK },
    { name: 'ECDSA', namedCurve: 'P-256' },
    false,
    ['sign'],
  );
  return client.discovery(
    new URL(issuer),
    KEYED.clientId,
    undefined,
    client.PrivateKeyJwt({ key, kid: SEEDED_KEYED_PRIVATE_JWK.kid }),
    insecure,
  );
}

/** PAR (pushed by the library) → login → code → tokens, with a DPoP key throughout when given. */
async function parFlow(config: client.Configuration, dpop?: client.DPoPHandle) {
  const pkceCodeVerifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = await client.buildAuthorizationUrlWithPAR(
    config,
    {
      redirect_uri: KEYED.redirectUri,
      scope: 'openid profile offline_access',
      state,
      nonce,
      code_challenge: await client.calculatePKCECodeChallenge(pkceCodeVerifier),
      code_challenge_method: 'S256',
    },
    dpop ? { DPoP: dpop } : undefined,
  );
  expect(url.searchParams.get('request_uri')).toMatch(/^urn:ietf:params:oauth:request_uri:/);
  expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
  const { location } = await browse(url.href);
  expect(location?.startsWith(KEYED.redirectUri)).toBe(true);
  return client.authorizationCodeGrant(
    config,
    new URL(location!),
    { pkceCodeVerifier, expectedState: state, expectedNonce: nonce },
    undefined,
    dpop ? { DPoP: dpop } : undefined,
  );
}

/** PAR + private_key_jwt + DPoP: token_type dpop, and userinfo in the DPoP scheme. */
async function dpopFlow(issuer: string) {
  const config = await keyedConfig(issuer);
  const dpop = client.getDPoPHandle(config, await client.randomDPoPKeyPair('ES256'));
  const tokens = await parFlow(config, dpop);
  expect(tokens.token_type).toBe('dpop');
  const info = await client.fetchUserInfo(config, tokens.access_token, ALICE.sub, { DPoP: dpop });
  expect(info.sub).toBe(ALICE.sub);
  return { config, dpop, tokens };
}

describe('openid-client: PAR, DPoP and private_key_jwt against the default reference', () => {
  const ctx = useServer();

  it(
    'private_key_jwt + PAR: the library pushes, authenticates with a signed assertion and gets ' + 'Bearer tokens',
    async () => {
      const config = await keyedConfig(ctx.issuer);
      expect(config.serverMetadata().pushed_authorization_request_endpoint).toBe(`${ctx.issuer}/par`);
      const tokens = await parFlow(config);
      expect(tokens.token_type).toBe('bearer');
      expect(tokens.claims()).toMatchObject({ sub: ALICE.sub, aud: KEYED.clientId });
    },
  );

  it('DPoP: token_type dpop, userinfo with the DPoP scheme, refresh with the same key', async () => {
    const { config, dpop, tokens } = await dpopFlow(ctx.issuer);
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!, undefined, { DPoP: dpop });
    expect(refreshed.token_type).toBe('dpop');
  });
});

describe('openid-client against the reference with its FAPI 2.0 settings', () => {
  const ctx = useServer({ profile: 'fapi2' });

  it('advertises PAR required and private_key_jwt only', async () => {
    const config = await keyedConfig(ctx.issuer);
    const metadata = config.serverMetadata();
    expect(metadata.require_pushed_authorization_requests).toBe(true);
    expect(metadata.token_endpoint_auth_methods_supported).toEqual(['private_key_jwt']);
    expect(metadata.authorization_response_iss_parameter_supported).toBe(true);
  });

  it('PAR + private_key_jwt + DPoP complete; the library checks iss (RFC 9207)', async () => {
    await dpopFlow(ctx.issuer);
  });

  it('without DPoP the token request is refused: only sender-constrained tokens', async () => {
    const config = await keyedConfig(ctx.issuer);
    await expect(parFlow(config)).rejects.toMatchObject({ error: 'invalid_dpop_proof' });
  });
});
