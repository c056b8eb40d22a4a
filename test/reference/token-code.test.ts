import { createHash } from 'node:crypto';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  ALICE,
  authUrl,
  browse,
  claimsOf,
  headerOf,
  obtainCode,
  partnerAuth,
  PARTNER,
  pkce,
  redeem,
  SPA,
  token,
  useServer,
  WEB,
  webAuth,
} from './helpers.ts';

const atHash = (accessToken: string) =>
  createHash('sha256').update(accessToken).digest().subarray(0, 16).toString('base64url');

describe('authorization_code: the happy path', () => {
  const ctx = useServer();

  it('a confidential client (client_secret_basic) gets Bearer access, ID and refresh tokens, uncached', async () => {
    const got = await obtainCode(ctx.issuer, WEB, { scope: 'openid profile offline_access' });
    const res = await redeem(ctx.issuer, WEB, got);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
    expect(res.json).toMatchObject({
      token_type: 'Bearer',
      expires_in: 3600,
      scope: 'openid profile offline_access',
      access_token: expect.any(String),
      id_token: expect.any(String),
      refresh_token: expect.any(String),
    });
  });

  it('the access token is an RFC 9068 JWT and the ID token carries every required claim', async () => {
    const got = await obtainCode(ctx.issuer, WEB, { scope: 'openid profile', nonce: 'n-0S6_WzA2Mj' });
    const { json } = await redeem(ctx.issuer, WEB, got);
    const jwks = createLocalJWKSet(ctx.server.context.keys.publicJwks());
    const at = await jwtVerify(String(json.access_token), jwks, {
      issuer: ctx.issuer,
      typ: 'at+jwt',
      algorithms: ['RS256'],
    });
    expect(at.protectedHeader).toMatchObject({ alg: 'RS256', typ: 'at+jwt', kid: ctx.server.context.keys.current.kid });
    expect(at.payload).toMatchObject({
      iss: ctx.issuer,
      sub: ALICE.sub,
      aud: ctx.issuer,
      client_id: WEB.clientId,
      scope: 'openid profile',
      iat: expect.any(Number),
      exp: expect.any(Number),
      jti: expect.any(String),
    });
    const id = await jwtVerify(String(json.id_token), jwks, {
      issuer: ctx.issuer,
      audience: WEB.clientId,
      algorithms: ['RS256'],
    });
    expect(id.protectedHeader).toMatchObject({ alg: 'RS256', kid: ctx.server.context.keys.current.kid });
    const now = Math.floor(Date.now() / 1000);
    expect(id.payload).toMatchObject({
      iss: ctx.issuer,
      sub: ALICE.sub,
      aud: WEB.clientId,
      nonce: 'n-0S6_WzA2Mj',
      at_hash: atHash(String(json.access_token)),
    });
    for (const claim of ['iat', 'nbf', 'auth_time'] as const)
      expect(Math.abs(Number(id.payload[claim]) - now)).toBeLessThan(10);
    expect(Number(id.payload.exp)).toBeGreaterThan(now);
  });

  it.each([
    ['openid', []],
    ['openid profile', ['name', 'family_name', 'picture']],
    ['openid email', ['email', 'email_verified']],
    ['openid address', ['address']],
    ['openid phone', ['phone_number']],
    [
      'openid profile email address phone',
      ['name', 'family_name', 'picture', 'email', 'email_verified', 'address', 'phone_number'],
    ],
  ])('scope "%s" releases exactly its claims in the ID token', async (scope, expected) => {
    const { json } = await redeem(ctx.issuer, WEB, await obtainCode(ctx.issuer, WEB, { scope }));
    const claims = claimsOf(json.id_token);
    const userClaims = Object.keys(claims).filter((k) => k in ALICE.claims);
    expect(userClaims.sort()).toEqual([...expected].sort());
    for (const name of expected) expect(claims[name]).toEqual(ALICE.claims[name as keyof typeof ALICE.claims]);
  });

  it('no ID token without openid', async () => {
    const { json } = await redeem(ctx.issuer, WEB, await obtainCode(ctx.issuer, WEB, { scope: 'api:read' }));
    expect(json.access_token).toEqual(expect.any(String));
    expect(json).not.toHaveProperty('id_token');
  });

  it('client_secret_post and a JSON body work as well', async () => {
    const got = await obtainCode(ctx.issuer, WEB);
    const res = await fetch(`${ctx.issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grant_type: 'authorization_code',
        code: got.code,
        code_verifier: got.verifier,
        redirect_uri: got.redirectUri,
        client_id: WEB.clientId,
        client_secret: WEB.clientSecret,
      }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ token_type: 'Bearer' });
  });

  it('the public client authenticates with none, and may not present a secret', async () => {
    const got = await obtainCode(ctx.issuer, SPA);
    const withSecret = await token(ctx.issuer, {
      grant_type: 'authorization_code',
      code: got.code,
      code_verifier: got.verifier,
      redirect_uri: got.redirectUri,
      client_id: SPA.clientId,
      client_secret: 'anything',
    });
    expect(withSecret.status).toBe(401);
    expect(withSecret.json.error).toBe('invalid_client');
    const ok = await redeem(ctx.issuer, SPA, got);
    expect(ok.status).toBe(200);
    expect(claimsOf(ok.json.id_token).aud).toBe(SPA.clientId);
  });

  it('third-party clients get shorter access and refresh lifetimes than first-party ones', async () => {
    const third = await redeem(ctx.issuer, SPA, await obtainCode(ctx.issuer, SPA));
    const first = await redeem(ctx.issuer, WEB, await obtainCode(ctx.issuer, WEB));
    expect(Number(third.json.expires_in)).toBeLessThan(Number(first.json.expires_in));
    const { store } = ctx.server.context;
    const [thirdRefresh, firstRefresh] = await Promise.all([
      store.findRefresh(String(third.json.refresh_token)),
      store.findRefresh(String(first.json.refresh_token)),
    ]);
    expect(thirdRefresh!.record.expiresAt).toBeLessThan(firstRefresh!.record.expiresAt);
  });
});

describe('authorization_code: the code is single use and bound', () => {
  const ctx = useServer();

  it('a second redemption is invalid_grant and revokes what the first one issued', async () => {
    const got = await obtainCode(ctx.issuer, WEB, { scope: 'openid offline_access' });
    const first = await redeem(ctx.issuer, WEB, got);
    expect(first.status).toBe(200);
    const { store } = ctx.server.context;
    const jti = String(claimsOf(first.json.access_token).jti);
    expect(await store.isAccessTokenActive(jti)).toBe(true);
    const replay = await redeem(ctx.issuer, WEB, got);
    expect(replay.status).toBe(400);
    expect(replay.json.error).toBe('invalid_grant');
    expect(await store.isAccessTokenActive(jti)).toBe(false);
    const refresh = await token(
      ctx.issuer,
      { grant_type: 'refresh_token', refresh_token: String(first.json.refresh_token) },
      webAuth,
    );
    expect(refresh.json.error).toBe('invalid_grant');
  });

  it('parallel redemptions of one code: exactly one succeeds', async () => {
    const got = await obtainCode(ctx.issuer, WEB);
    const results = await Promise.all(Array.from({ length: 10 }, () => redeem(ctx.issuer, WEB, got)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 200)) expect(r.json.error).toBe('invalid_grant');
  });

  it('another client cannot redeem the code, and the attempt does not burn it for its owner', async () => {
    const got = await obtainCode(ctx.issuer, WEB);
    const stolen = await token(
      ctx.issuer,
      {
        grant_type: 'authorization_code',
        code: got.code,
        code_verifier: got.verifier,
        redirect_uri: got.redirectUri,
      },
      partnerAuth,
    );
    expect(stolen.status).toBe(400);
    expect(stolen.json.error).toBe('invalid_grant');
    expect((await redeem(ctx.issuer, WEB, got)).status).toBe(200);
  });

  it('another client cannot redeem it even with its own redirect_uri', async () => {
    const got = await obtainCode(ctx.issuer, WEB);
    const stolen = await redeem(ctx.issuer, PARTNER, { ...got, redirectUri: PARTNER.redirectUri });
    expect(stolen.json.error).toBe('invalid_grant');
  });

  it('the redirect_uri must equal the one of the authorization request', async () => {
    const got = await obtainCode(ctx.issuer, WEB);
    expect((await redeem(ctx.issuer, WEB, { ...got, redirectUri: 'https://web.example.test/other' })).json.error).toBe(
      'invalid_grant',
    );
    const missing = await token(
      ctx.issuer,
      { grant_type: 'authorization_code', code: got.code, code_verifier: got.verifier },
      webAuth,
    );
    expect(missing.json.error).toBe('invalid_request');
  });

  it('an unknown code is invalid_grant; a missing code is invalid_request', async () => {
    const unknown = await token(
      ctx.issuer,
      { grant_type: 'authorization_code', code: 'x'.repeat(43), redirect_uri: WEB.redirectUri },
      webAuth,
    );
    expect(unknown).toMatchObject({ status: 400, json: { error: 'invalid_grant' } });
    const missing = await token(
      ctx.issuer,
      { grant_type: 'authorization_code', redirect_uri: WEB.redirectUri },
      webAuth,
    );
    expect(missing.json.error).toBe('invalid_request');
  });
});

describe('authorization_code: PKCE', () => {
  const ctx = useServer();

  it('a wrong verifier is invalid_grant', async () => {
    const got = await obtainCode(ctx.issuer, SPA);
    const res = await redeem(ctx.issuer, SPA, { ...got, verifier: pkce().verifier });
    expect(res).toMatchObject({ status: 400, json: { error: 'invalid_grant' } });
  });

  it('a challenge once given must be met: no verifier is invalid_grant', async () => {
    const got = await obtainCode(ctx.issuer, WEB);
    const res = await token(
      ctx.issuer,
      { grant_type: 'authorization_code', code: got.code, redirect_uri: got.redirectUri },
      webAuth,
    );
    expect(res.json.error).toBe('invalid_grant');
  });

  it('a verifier without a challenge is refused (downgrade)', async () => {
    const url = authUrl(ctx.issuer, {
      response_type: 'code',
      client_id: WEB.clientId,
      redirect_uri: WEB.redirectUri,
      scope: 'openid',
    });
    const code = new URL((await browse(url)).location!).searchParams.get('code')!;
    const res = await redeem(ctx.issuer, WEB, { code, verifier: pkce().verifier, redirectUri: WEB.redirectUri });
    expect(res.json.error).toBe('invalid_grant');
  });

  it('without PKCE at either step, a first-party confidential client succeeds', async () => {
    const url = authUrl(ctx.issuer, {
      response_type: 'code',
      client_id: WEB.clientId,
      redirect_uri: WEB.redirectUri,
      scope: 'openid',
    });
    const code = new URL((await browse(url)).location!).searchParams.get('code')!;
    const res = await token(
      ctx.issuer,
      { grant_type: 'authorization_code', code, redirect_uri: WEB.redirectUri },
      webAuth,
    );
    expect(res.status).toBe(200);
  });

  it.each([
    ['42 characters', 'a'.repeat(42)],
    ['129 characters', 'a'.repeat(129)],
    ['a character outside the unreserved set', `${'a'.repeat(42)}+`],
  ])('a verifier of %s is refused even when its S256 matches the challenge', async (_, verifier) => {
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const url = authUrl(ctx.issuer, {
      response_type: 'code',
      client_id: SPA.clientId,
      redirect_uri: SPA.redirectUri,
      scope: 'openid',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const code = new URL((await browse(url)).location!).searchParams.get('code')!;
    const res = await redeem(ctx.issuer, SPA, { code, verifier, redirectUri: SPA.redirectUri });
    expect(res.json.error).toBe('invalid_grant');
  });
});

describe('authorization_code: the code lives 60 seconds', () => {
  let clock = Date.now();
  const ctx = useServer({ now: () => clock });

  it('is refused after 60 s and accepted just before', async () => {
    const late = await obtainCode(ctx.issuer, WEB);
    const onTime = await obtainCode(ctx.issuer, WEB);
    clock += 59_000;
    expect((await redeem(ctx.issuer, WEB, onTime)).status).toBe(200);
    clock += 2_000;
    expect((await redeem(ctx.issuer, WEB, late)).json.error).toBe('invalid_grant');
  });

  it("the ID token's timestamps follow the server clock", async () => {
    clock = Date.now() + 3_600_000;
    const { json } = await redeem(ctx.issuer, WEB, await obtainCode(ctx.issuer, WEB));
    expect(Number(claimsOf(json.id_token).iat)).toBe(Math.floor(clock / 1000));
    expect(headerOf(json.id_token).typ).toBe('JWT');
  });
});
