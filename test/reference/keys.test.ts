/** Signing keys (docs/service-spec.md): every selectable algorithm, kid on every token, rotation, public-only JWKS. */
import { createHash } from 'node:crypto';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet, type JWK } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { createReferenceServer, KeySet, type SigningAlg } from '../../reference/index.ts';
import { SIGNING_ALGS } from '../../reference/keys.ts';
import { MACHINE, SPA, startReference, WEB, type ReferenceClient } from '../support/reference-client.ts';
import { verifyPresentedAccessToken } from '../../reference/verify.ts';

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'oth'];

let running: ReferenceClient[] = [];
afterEach(async () => {
  await Promise.all(running.map((client) => client.close()));
  running = [];
});

async function start(...args: Parameters<typeof startReference>): Promise<ReferenceClient> {
  const client = await startReference(...args);
  running.push(client);
  return client;
}

const jwksOf = async (idp: ReferenceClient) => (await idp.json('/jwks')) as unknown as JSONWebKeySet;

/** OIDC Core §3.1.3.6: the left half of the hash the JWS alg uses (SHA-512 for Ed25519). */
function atHash(accessToken: string, alg: SigningAlg): string {
  const digest = createHash(alg === 'EdDSA' ? 'sha512' : 'sha256')
    .update(accessToken)
    .digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

describe('each signing algorithm', () => {
  it.each(SIGNING_ALGS)('%s: tokens carry a kid and verify against the published JWKS', async (alg) => {
    const idp = await start({ signingAlg: alg });
    const discovery = await idp.json('/.well-known/openid-configuration');
    expect(discovery.id_token_signing_alg_values_supported).toEqual([alg]);

    const jwks = await jwksOf(idp);
    expect(jwks.keys).toHaveLength(1);
    const jwk = jwks.keys[0]!;
    expect(jwk).toMatchObject({ alg, use: 'sig', kid: expect.any(String) });
    for (const member of PRIVATE_MEMBERS) expect(jwk).not.toHaveProperty(member);
    if (alg === 'EdDSA') expect(jwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519' });

    const tokens = await idp.tokensFor(WEB, { scope: 'openid', nonce: 'n-1' });
    const keySet = createLocalJWKSet(jwks);
    const access = await jwtVerify(String(tokens.access_token), keySet, {
      algorithms: [alg],
      issuer: idp.issuer,
      typ: 'at+jwt',
    });
    const id = await jwtVerify(String(tokens.id_token), keySet, {
      algorithms: [alg],
      issuer: idp.issuer,
      audience: WEB.clientId,
    });
    expect(access.protectedHeader).toMatchObject({ alg, kid: jwk.kid });
    expect(id.protectedHeader).toMatchObject({ alg, kid: jwk.kid });
    expect(id.payload).toMatchObject({ nonce: 'n-1', at_hash: atHash(String(tokens.access_token), alg) });
  });

  it('RS256 is the default', async () => {
    const server = createReferenceServer();
    try {
      expect(server.context.keys.current.alg).toBe('RS256');
    } finally {
      await server.close();
    }
  });

  it('an unsupported algorithm is refused when the server is created', () => {
    expect(() => createReferenceServer({ signingAlg: 'HS256' as SigningAlg })).toThrow(/HS256.*not supported.*RS256/);
  });
});

describe('key rotation', () => {
  /** A server on a clock the test moves; token lifetimes of one hour (first-party) and ten minutes (third-party). */
  async function startWithClock() {
    const clock = { now: Date.UTC(2030, 0, 1) };
    const idp = await start({ now: () => clock.now });
    return { idp, clock, keys: idp.server.context.keys };
  }

  async function verifiable(idp: ReferenceClient, token: string, at: number): Promise<boolean> {
    const keySet = createLocalJWKSet(await jwksOf(idp));
    return jwtVerify(token, keySet, { issuer: idp.issuer, currentDate: new Date(at) }).then(
      () => true,
      () => false,
    );
  }

  const clientCredentialsToken = async (idp: ReferenceClient) =>
    String((await idp.token({ grant_type: 'client_credentials' }, { client: MACHINE })).body.access_token);

  it('a new kid signs; old tokens keep verifying until they expire, then the old key leaves the JWKS', async () => {
    const { idp, clock, keys } = await startWithClock();
    const oldKid = keys.current.kid;
    const oldToken = await clientCredentialsToken(idp); // first-party: one hour

    const next = keys.rotate();
    expect(next.kid).not.toBe(oldKid);
    const newToken = await clientCredentialsToken(idp);
    expect(decodeProtectedHeader(newToken).kid).toBe(next.kid);
    expect(decodeProtectedHeader(oldToken).kid).toBe(oldKid);
    expect((await jwksOf(idp)).keys.map((k) => k.kid)).toEqual([next.kid, oldKid]);
    expect(await verifiable(idp, oldToken, clock.now)).toBe(true);
    expect(await verifyPresentedAccessToken(idp.server.context, oldToken).then((v) => v.claims)).toMatchObject({
      client_id: MACHINE.clientId,
    });

    clock.now += 3599_000;
    expect((await jwksOf(idp)).keys.map((k) => k.kid)).toEqual([next.kid, oldKid]);
    expect(await verifiable(idp, oldToken, clock.now)).toBe(true);

    clock.now += 1000; // the old token's exp
    expect((await jwksOf(idp)).keys.map((k) => k.kid)).toEqual([next.kid]);
    expect(keys.find(oldKid)).toBeUndefined();
    expect(await verifiable(idp, newToken, clock.now - 1000)).toBe(true);
  });

  it('an old key is kept as long as the longest-lived token it signed', async () => {
    const { idp, clock, keys } = await startWithClock();
    const oldKid = keys.current.kid;
    await idp.tokensFor(SPA, { scope: 'openid' }); // third-party: a ten-minute access token, a one-hour ID token
    keys.rotate();
    clock.now += 600_000;
    expect(keys.find(oldKid)).toBeDefined(); // the ID token still lives
    clock.now += 3000_000;
    expect(keys.find(oldKid)).toBeUndefined();
  });

  it('a key that signed nothing leaves at once; rotation may change the algorithm', async () => {
    const { idp, keys } = await startWithClock();
    const first = keys.current.kid;
    const second = keys.rotate('EdDSA');
    expect(keys.find(first)).toBeUndefined();
    const discovery = await idp.json('/.well-known/openid-configuration');
    expect(discovery.id_token_signing_alg_values_supported).toEqual(['EdDSA']);
    const token = await clientCredentialsToken(idp);
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'EdDSA', kid: second.kid });
    keys.rotate('ES256');
    // The EdDSA key verifies its token still, so both algorithms are on the allow-list.
    expect(keys.algorithms).toEqual(['ES256', 'EdDSA']);
  });

  it('the JWKS carries no private members, whatever keys it holds', () => {
    const keys = KeySet.generate('ES256');
    for (const alg of ['EdDSA', 'ES256'] as const) {
      keys.forSigning(Date.now() + 60_000);
      keys.rotate(alg);
    }
    const published = keys.publicJwks().keys as JWK[];
    expect(published).toHaveLength(3);
    for (const jwk of published) for (const member of PRIVATE_MEMBERS) expect(jwk).not.toHaveProperty(member);
  });
});
