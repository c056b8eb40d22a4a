import { createHmac, timingSafeEqual } from 'node:crypto';
import fc from 'fast-check';
import * as jose from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { attackerJwks, attackerKeyFor } from '../../generators/attacker-keys.ts';
import { DEFAULT_ATTACKER_URL, JWT_FORGERY_KINDS, jwtForgery, type ForgedJwt } from '../../generators/jwt-forgery.ts';
import { ALG_NONE_SPELLINGS, KID_INJECTIONS, forgeAlgNone } from '../../generators/jwt-tamper.ts';

const SEED = 8725;
const CLAIMS = { sub: 'alice', scope: 'openid profile', client_id: 'web' };
const IAT = 1_700_000_000;
/** Verify while the genuine token is fresh, so that a rejection is about the signature, never expiry. */
const AT = { currentDate: new Date((IAT + 60) * 1000) };

interface Victim {
  alg: string;
  token: string;
  jwk: jose.JWK;
  publicKey: jose.CryptoKey;
}

const victims = new Map<string, Promise<Victim>>();
/** A genuine token of a server key; RSA key generation is slow, so each (alg, kid) is made once. */
function victim(alg: 'RS256' | 'ES256', kid = `server-${alg}`): Promise<Victim> {
  const id = `${alg}/${kid}`;
  if (!victims.has(id)) victims.set(id, makeVictim(alg, kid));
  return victims.get(id)!;
}

async function makeVictim(alg: 'RS256' | 'ES256', kid: string): Promise<Victim> {
  const { publicKey, privateKey } = await jose.generateKeyPair(alg, { extractable: true });
  const jwk = { ...(await jose.exportJWK(publicKey)), kid, alg, use: 'sig' };
  const token = await new jose.SignJWT(CLAIMS)
    .setProtectedHeader({ alg, kid: jwk.kid, typ: 'at+jwt' })
    .setIssuer('https://idp.example.test')
    .setAudience('api')
    .setIssuedAt(IAT)
    .setExpirationTime(IAT + 3600)
    .sign(privateKey);
  return { alg, token, jwk, publicKey };
}

const part = (token: string, i: number) => token.split('.')[i] ?? '';
const json = (segment: string): Record<string, unknown> => JSON.parse(Buffer.from(segment, 'base64url').toString());
const hmacOk = (token: string, secret: Uint8Array) => {
  const expected = createHmac('sha256', secret)
    .update(`${part(token, 0)}.${part(token, 1)}`)
    .digest();
  const actual = Buffer.from(part(token, 2), 'base64url');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
};

/** The HMAC secret a confused server would use, derived here without the generator's code. */
async function expectedSecret(v: Victim, encoding: string): Promise<Buffer> {
  const pem = await jose.exportSPKI(v.publicKey); // jose writes no final newline
  const der = Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
  const pkcs1 = der.subarray(24); // RSA-2048 SPKI: 24 header bytes, then the PKCS#1 RSAPublicKey
  const b64 = (s: unknown) => Buffer.from(String(s), 'base64url');
  const secrets: Record<string, Buffer> = {
    'pem-spki': Buffer.from(`${pem}\n`),
    'pem-spki-trimmed': Buffer.from(pem),
    'der-spki': der,
    'jwk-json': Buffer.from(JSON.stringify(v.jwk)),
    'jwk-thumbprint-json': Buffer.from(
      v.jwk.kty === 'RSA'
        ? JSON.stringify({ e: v.jwk.e, kty: 'RSA', n: v.jwk.n })
        : JSON.stringify({ crv: v.jwk.crv, kty: 'EC', x: v.jwk.x, y: v.jwk.y }),
    ),
    'pem-pkcs1': Buffer.from(
      `-----BEGIN RSA PUBLIC KEY-----\n${pkcs1.toString('base64').replace(/.{64}/g, '$&\n')}\n-----END RSA ` +
        `PUBLIC KEY-----\n`,
    ),
    'der-pkcs1': pkcs1,
    'modulus-raw': b64(v.jwk.n),
    'modulus-base64url': Buffer.from(String(v.jwk.n)),
    'point-raw': Buffer.concat([Buffer.of(4), b64(v.jwk.x), b64(v.jwk.y)]),
  };
  const secret = secrets[encoding];
  if (!secret) throw new Error(`no independent derivation for ${encoding}`);
  return secret;
}

async function checkClaim(f: ForgedJwt, v: Victim): Promise<void> {
  const [h, p, s] = [part(f.token, 0), part(f.token, 1), part(f.token, 2)];
  const header = json(h);
  const genuineHeader = json(part(v.token, 0));
  const resigned = () => expect(p).toBe(part(v.token, 1));
  const attacker = attackerKeyFor(v.alg);
  const kidOf: Record<string, unknown> = {
    'attacker-kid': attacker.kid,
    'no-kid': undefined,
    'original-kid': v.jwk.kid,
  };
  switch (f.kind) {
    case 'alg-none':
      expect(String(header.alg).toLowerCase()).toBe('none');
      expect({ ...header, alg: v.alg }).toEqual(genuineHeader);
      resigned();
      expect(s).toBe(f.variant.endsWith('/original-signature') ? part(v.token, 2) : '');
      break;
    case 'hs256-key-confusion':
      expect([header.alg, header.kid]).toEqual(['HS256', v.jwk.kid]);
      resigned();
      expect(hmacOk(f.token, await expectedSecret(v, f.variant))).toBe(true);
      // what a naive HS256 verifier holding that byte string would say:
      await jose.jwtVerify(f.token, await expectedSecret(v, f.variant), { algorithms: ['HS256'], ...AT });
      break;
    case 'signature-stripped':
      expect(f.token).toBe(
        f.variant === 'empty-signature'
          ? `${part(v.token, 0)}.${part(v.token, 1)}.`
          : `${part(v.token, 0)}.${part(v.token, 1)}`,
      );
      break;
    case 'signature-changed': {
      expect(`${h}.${p}`).toBe(`${part(v.token, 0)}.${part(v.token, 1)}`);
      const [a, b] = [Buffer.from(s, 'base64url'), Buffer.from(part(v.token, 2), 'base64url')];
      expect(a.length).toBe(b.length);
      const flipped = [...a].reduce(
        (n, byte, i) => n + [...(byte ^ b[i]!).toString(2)].filter((c) => c === '1').length,
        0,
      );
      expect(flipped).toBe(1);
      break;
    }
    case 'claims-changed': {
      expect([h, s]).toEqual([part(v.token, 0), part(v.token, 2)]);
      const [payload, genuine] = [json(p), json(part(v.token, 1))];
      const changed = [...new Set([...Object.keys(payload), ...Object.keys(genuine)])].filter(
        (k) => JSON.stringify(payload[k]) !== JSON.stringify(genuine[k]),
      );
      expect(changed).toEqual([f.variant]);
      break;
    }
    case 'kid-injection': {
      resigned();
      const injection = KID_INJECTIONS.find((k) => k.variant === f.variant);
      expect(header.kid).toEqual(injection?.kid);
      if (header.alg === 'HS256') expect(hmacOk(f.token, Buffer.from(injection?.hmacSecret ?? '-'))).toBe(true);
      else await jose.jwtVerify(f.token, await jose.importJWK(attacker.publicJwk as jose.JWK, v.alg), AT);
      break;
    }
    case 'embedded-jwk': {
      resigned();
      expect([header.alg, header.kid]).toEqual([v.alg, kidOf[f.variant]]);
      expect(Object.keys(header.jwk as object)).not.toContain('d');
      await jose.jwtVerify(f.token, jose.EmbeddedJWK, AT); // a server trusting the header's key accepts it
      break;
    }
    case 'jku':
    case 'x5u': {
      resigned();
      expect([header.alg, header[f.kind], header.kid]).toEqual([v.alg, DEFAULT_ATTACKER_URL, kidOf[f.variant]]);
      await jose.jwtVerify(f.token, await jose.importJWK(attacker.publicJwk as jose.JWK, v.alg), AT);
      break;
    }
  }
}

describe.each(['RS256', 'ES256'] as const)('jwtForgery of a genuine %s token', (alg) => {
  let v: Victim;
  let forged: ForgedJwt[];
  beforeAll(async () => {
    v = await victim(alg);
    forged = fc.sample(jwtForgery(v.token, { keys: [v.jwk] }), { seed: SEED, numRuns: 400 });
  });

  it('produces every kind, and never the genuine token', () => {
    expect(new Set(forged.map((f) => f.kind))).toEqual(new Set(JWT_FORGERY_KINDS));
    expect(forged.filter((f) => f.token === v.token)).toEqual([]);
  });

  it('every forgery is what it claims (decoded header, payload and signature)', async () => {
    for (const f of forged) {
      try {
        await checkClaim(f, v);
      } catch (error) {
        throw new Error(`${f.kind} / ${f.variant}: ${(error as Error).message}`);
      }
    }
  });

  it('every forgery is rejected by a correct verifier holding the real key', async () => {
    for (const f of forged) {
      await expect(jose.jwtVerify(f.token, v.publicKey, AT), `${f.kind} / ${f.variant}`).rejects.toThrow();
    }
    await expect(jose.jwtVerify(v.token, v.publicKey, AT)).resolves.toBeDefined(); // the genuine one passes
  });

  it('covers every key-confusion encoding of the key type', () => {
    const encodings = new Set(forged.filter((f) => f.kind === 'hs256-key-confusion').map((f) => f.variant));
    const specific = alg === 'RS256' ? ['pem-pkcs1', 'der-pkcs1', 'modulus-raw', 'modulus-base64url'] : ['point-raw'];
    expect([...encodings].sort()).toEqual(
      ['der-spki', 'jwk-json', 'jwk-thumbprint-json', 'pem-spki', 'pem-spki-trimmed', ...specific].sort(),
    );
  });
});

describe('JWT forgery details', () => {
  it('spells alg none in all 16 cases, and forgeAlgNone defaults to "none" with an empty signature', async () => {
    expect(new Set(ALG_NONE_SPELLINGS).size).toBe(16);
    expect(ALG_NONE_SPELLINGS.every((s) => s.toLowerCase() === 'none')).toBe(true);
    const v = await victim('ES256');
    const forged = forgeAlgNone(v.token);
    expect([json(part(forged, 0)).alg, part(forged, 2)]).toEqual(['none', '']);
  });

  it('aims key confusion at the key named by the token kid only', async () => {
    const [v, other] = [await victim('RS256'), await victim('RS256', 'previous')];
    const forged = fc.sample(jwtForgery(v.token, [other.jwk, v.jwk], { kinds: ['hs256-key-confusion'] }), {
      seed: SEED,
      numRuns: 50,
    });
    for (const f of forged) {
      expect(hmacOk(f.token, await expectedSecret(v, f.variant))).toBe(true);
      expect(hmacOk(f.token, await expectedSecret(other, f.variant))).toBe(false);
    }
  });

  it('is deterministic under a seed (RS256 signatures included)', async () => {
    const v = await victim('RS256');
    const draw = () =>
      fc.sample(jwtForgery(v.token, [v.jwk], { attackerUrl: 'https://evil.test/k' }), { seed: SEED, numRuns: 60 });
    expect(draw()).toEqual(draw());
  });

  it.each(['RS256', 'PS256', 'ES256', 'ES384', 'ES512', 'EdDSA'])(
    'has a working public attacker key for %s',
    async (alg) => {
      const key = attackerKeyFor(alg);
      expect(Object.keys(key.publicJwk).filter((m) => ['d', 'p', 'q', 'dp', 'dq', 'qi'].includes(m))).toEqual([]);
      const token = await new jose.SignJWT({ sub: 'x' })
        .setProtectedHeader({ alg })
        .sign(await jose.importJWK({ ...(key.key.export({ format: 'jwk' }) as jose.JWK) }, alg));
      await jose.jwtVerify(token, jose.createLocalJWKSet(attackerJwks(key) as jose.JSONWebKeySet));
    },
  );
});
