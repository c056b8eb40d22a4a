import * as jose from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../harness/config/load.ts';
import { CheckFailure } from '../../harness/model/failures.ts';
import { HttpClient } from '../../harness/http/client.ts';
import { Recorder } from '../../harness/http/recorder.ts';
import { JwtTools, atHash } from '../../harness/flows/jwt.ts';
import { Redactor } from '../../harness/redact/redact.ts';
import { targetFromDiscovery } from '../../harness/target/target.ts';

const issuer = 'https://idp.test';
const client: Client = {
  role: 'confidential',
  clientId: 'web',
  scope: 'openid',
  authMethod: 'client_secret_basic',
  clientSecret: 'x',
};
type Key = Awaited<ReturnType<typeof jose.generateKeyPair>>['privateKey'];
let key: Key;
let otherKey: Key;
let jwks: jose.JSONWebKeySet;

beforeAll(async () => {
  const pair = await jose.generateKeyPair('RS256');
  key = pair.privateKey;
  otherKey = (await jose.generateKeyPair('RS256')).privateKey;
  jwks = { keys: [{ ...(await jose.exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256' }] };
});

function tools(algs: string[] = ['RS256']) {
  const fetchJwks = (async () =>
    new Response(JSON.stringify(jwks), { headers: { 'content-type': 'application/json' } })) as typeof fetch;
  const http = new HttpClient({ recorder: new Recorder(new Redactor()), fetch: fetchJwks });
  const target = targetFromDiscovery(issuer, `${issuer}/.well-known/openid-configuration`, {
    issuer,
    jwks_uri: `${issuer}/jwks`,
    id_token_signing_alg_values_supported: algs,
  });
  return new JwtTools(http, target);
}

async function idToken(claims: jose.JWTPayload = {}, header: Partial<jose.JWTHeaderParameters> = {}, signWith = key) {
  const now = Math.floor(Date.now() / 1000);
  return new jose.SignJWT({ sub: 'u1', iss: issuer, aud: 'web', iat: now, exp: now + 300, ...claims })
    .setProtectedHeader({ alg: 'RS256', kid: 'k1', ...header })
    .sign(signWith);
}

async function failure(
  token: string,
  expect_: Partial<Parameters<JwtTools['validateIdToken']>[1]> = {},
  algs?: string[],
): Promise<string> {
  try {
    await tools(algs).validateIdToken(token, { client, ...expect_ });
  } catch (error) {
    expect(error).toBeInstanceOf(CheckFailure);
    return (error as Error).message;
  }
  throw new Error('expected the ID token to be rejected');
}

describe('ID token validation (SPEC JWT table, OIDC Core §3.1.3.7)', () => {
  it('accepts a valid token and returns its claims', async () => {
    const access = 'access-token-value';
    const payload = await tools().validateIdToken(await idToken({ nonce: 'n1', at_hash: atHash(access, 'RS256') }), {
      client,
      nonce: 'n1',
      accessToken: access,
    });
    expect(payload.sub).toBe('u1');
  });

  it('rejects each broken rule with a sentence naming it', async () => {
    expect(await failure(await idToken({ aud: 'other' }))).toMatch(
      /aud is "other", which does not contain the client_id "web"/,
    );
    expect(await failure(await idToken({ iss: 'https://evil.test' }))).toMatch(
      /iss is "https:\/\/evil\.test", not the issuer "https:\/\/idp\.test"/,
    );
    expect(await failure(await idToken({ exp: Math.floor(Date.now() / 1000) - 3600 }))).toMatch(/has expired/);
    expect(await failure(await idToken({ nbf: Math.floor(Date.now() / 1000) + 3600 }))).toMatch(
      /nbf .* is in the future/,
    );
    expect(await failure(await idToken({}, { kid: 'unknown' }))).toMatch(/kid "unknown".*matches no key in the JWKS/);
    expect(await failure(await idToken({}, {}, otherKey))).toMatch(/signature does not verify/);
    expect(await failure(await idToken({ nonce: 'other' }), { nonce: 'n1' })).toMatch(
      /nonce is "other", not the nonce sent/,
    );
    expect(await failure(await idToken({ at_hash: 'AAAA' }), { accessToken: 'tok' })).toMatch(
      /at_hash is "AAAA" but the access token hashes to/,
    );
    expect(await failure(await idToken({ azp: 'api' }))).toMatch(/azp is "api", not the client_id "web"/);
  });

  it('accepts an ID token with several audiences and no azp (OIDC Core errata set 2: azp is OPTIONAL)', async () => {
    const payload = await tools().validateIdToken(await idToken({ aud: ['web', 'api'] }), { client });
    expect(payload.aud).toEqual(['web', 'api']);
  });

  it('never accepts alg none or a symmetric algorithm, even if advertised', async () => {
    const unsigned = new jose.UnsecuredJWT({ sub: 'u1', iss: issuer, aud: 'web', iat: 1, exp: 9999999999 }).encode();
    expect(await failure(unsigned, {}, ['RS256', 'none'])).toMatch(
      /alg "none", which is not among the allowed asymmetric algorithms advertised by the IdP \(RS256\)/,
    );
    const hs = await new jose.SignJWT({ sub: 'u1' })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode('k'.repeat(32)));
    expect(await failure(hs, {}, ['RS256', 'HS256'])).toMatch(/alg "HS256"/);
  });

  it('checks the signature and the claims separately when asked for one half', async () => {
    const wrongAud = await idToken({ aud: 'other' });
    await expect(tools().verifyIdTokenSignature(wrongAud)).resolves.toMatchObject({ payload: { aud: 'other' } });
    expect(() => tools().validateIdTokenClaims(wrongAud, { client })).toThrow(/aud is "other"/);
    const foreign = await idToken({}, {}, otherKey);
    await expect(tools().verifyIdTokenSignature(foreign)).rejects.toThrow(/signature does not verify/);
    expect(tools().validateIdTokenClaims(foreign, { client }).sub).toBe('u1');
    const noSub = await idToken({ sub: undefined });
    expect(() => tools().validateIdTokenClaims(noSub, { client })).toThrow(/sub is missing/);
    const unsigned = new jose.UnsecuredJWT({ sub: 'u1', iss: issuer, aud: 'web', iat: 1, exp: 9999999999 }).encode();
    await expect(tools(['RS256', 'none']).verifyIdTokenSignature(unsigned)).rejects.toThrow(/alg "none"/);
  });

  it('checks at_hash only when present, unless required', async () => {
    const jwtTools = tools();
    const [without, right, wrong] = [
      await idToken(),
      await idToken({ at_hash: atHash('tok', 'RS256') }),
      await idToken({ at_hash: atHash('other', 'RS256') }),
    ];
    expect(jwtTools.checkAtHash(without, 'tok')).toBe('absent');
    expect(jwtTools.checkAtHash(right, 'tok')).toBe('matched');
    expect(() => jwtTools.checkAtHash(without, 'tok', { required: true })).toThrow(/at_hash is missing/);
    expect(() => jwtTools.checkAtHash(wrong, 'tok')).toThrow(/but the access token hashes to/);
  });

  it('computes at_hash per OIDC Core §3.1.3.8', () => {
    // Example from OIDC Core A.3/A.4 style: left half of SHA-256, base64url.
    expect(atHash('jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y', 'RS256')).toBe('77QmUPtjPfzWtF2AnpK9RQ');
  });
});
