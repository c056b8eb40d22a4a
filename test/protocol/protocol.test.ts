/** protocol/: the facts against the specs' own vectors and tables. */
import { createHash, generateKeyPairSync } from 'node:crypto';
import * as jose from 'jose';
import { describe, expect, it } from 'vitest';
import { HARNESS_SIGNING_ALGS, type Jwk, signJws } from '../../harness/tokens/jws-sign.ts';
import type { ScenarioDefinition } from '../../harness/scenario/scenario.ts';
import { CLIENT_ROLES } from '../../protocol/client-roles.ts';
import { FLAW_NAMES } from '../../protocol/flaw-names.ts';
import {
  ASYMMETRIC_ALGS,
  generateKeyPairFor,
  hashOfAlg,
  JWS_ALGS,
  type JwsAlgInfo,
  signatureOptions,
} from '../../protocol/jws.ts';
import { accessTokenClaimWellTyped, compactJwsParts, isAccessTokenJwtTyp } from '../../protocol/jwt-profiles.ts';
import { PRIVATE_JWK_MEMBERS, jwkThumbprint, privateJwkStrings } from '../../protocol/jwk.ts';
import { hasScopeToken, scopeTokens } from '../../protocol/scope.ts';
import { s256, S256_CHALLENGE_FORMAT, UNRESERVED, VERIFIER_FORMAT } from '../../protocol/pkce.ts';
import { ERROR_DESCRIPTION_FORMAT, ERROR_URI_FORMAT, SCOPE_TOKEN_FORMAT } from '../../protocol/syntax.ts';
import { accessTokenHash, tokenHash } from '../../protocol/token-hash.ts';

describe('protocol/pkce.ts', () => {
  it('S256 gives RFC 7636 Appendix B', () => {
    const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
    expect(VERIFIER_FORMAT.test(verifier)).toBe(true);
    expect(s256(verifier)).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    expect(S256_CHALLENGE_FORMAT.test(s256(verifier))).toBe(true);
  });

  it('on the §4.1 alphabet the octets hashed are the ASCII octets', () => {
    const verifier = UNRESERVED.join('');
    expect(s256(verifier)).toBe(createHash('sha256').update(Buffer.from(verifier, 'ascii')).digest('base64url'));
  });

  it('a non-ASCII verifier hashes as UTF-8 and never collides with an ASCII one', () => {
    const ascii = `${'a'.repeat(42)}i`;
    const wide = `${'a'.repeat(42)}ũ`; // U+0169, whose low byte is 0x69 'i'
    expect(VERIFIER_FORMAT.test(wide)).toBe(false);
    // What node's 'ascii' encoding would have done: the two verifiers hash alike.
    const nodeAscii = (v: string) => createHash('sha256').update(v, 'ascii').digest('base64url');
    expect(nodeAscii(wide)).toBe(nodeAscii(ascii));
    expect(s256(wide)).not.toBe(s256(ascii));
    expect(s256(wide)).toBe(createHash('sha256').update(Buffer.from(wide, 'utf8')).digest('base64url'));
  });
});

describe('protocol/token-hash.ts', () => {
  it('at_hash gives OIDC Core Appendix A.3 (RS256)', () => {
    expect(tokenHash('jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y', 'RS256')).toBe('77QmUPtjPfzWtF2AnpK9RQ');
  });

  it('c_hash gives OIDC Core Appendix A.4 (RS256)', () => {
    expect(tokenHash('Qcb0Orv1zh30vL1MPRsbm-diHiMwcLyZvn1arpZv-Jxf_11jnpEX3Tgfvk', 'RS256')).toBe(
      'LDktKdoQak3Pk0cnXxCltA',
    );
  });

  it('takes the left half of the hash the alg names, and is undefined where it names none', () => {
    const token = 'dNZX1hEZ9wBCzNL40Upu646bdzQA';
    for (const [alg, hash, octets] of [
      ['ES384', 'sha384', 24],
      ['PS512', 'sha512', 32],
      ['EdDSA', 'sha512', 32],
      ['HS256', 'sha256', 16],
    ] as const) {
      const want = createHash(hash).update(token).digest().subarray(0, octets).toString('base64url');
      expect(tokenHash(token, alg), alg).toBe(want);
    }
    expect(tokenHash(token, 'none')).toBeUndefined();
    expect(tokenHash(token, 'RS1024')).toBeUndefined();
  });

  it('DPoP ath is the whole SHA-256 of the token (RFC 9449 §4.2)', () => {
    expect(accessTokenHash('Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU')).toBe(
      createHash('sha256').update('Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU').digest('base64url'),
    );
  });
});

describe('protocol/jws.ts', () => {
  it('names the RFC 7518 §3.1 and RFC 8037 algorithms with their hash and key type', () => {
    expect(Object.keys(JWS_ALGS).sort()).toEqual(
      ['HS256', 'HS384', 'HS512', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512']
        .concat(['ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'])
        .sort(),
    );
    expect(JWS_ALGS.ES512).toEqual({ kty: 'EC', hash: 'sha512', crv: 'P-521' });
    expect(hashOfAlg('PS384')).toBe('sha384');
    expect(hashOfAlg('none')).toBeUndefined();
    expect(ASYMMETRIC_ALGS).not.toContain('HS256');
    expect(ASYMMETRIC_ALGS).toContain('EdDSA');
    expect(signatureOptions('HS256')).toBeUndefined();
    expect(signatureOptions('none')).toBeUndefined();
    expect(signatureOptions('PS512')).toMatchObject({ digest: 'sha512', saltLength: 64 });
  });

  it("the harness's signatures by the table verify with jose, for every algorithm it signs with", async () => {
    const pairs = {
      RSA: generateKeyPairSync('rsa', { modulusLength: 2048 }),
      'P-256': generateKeyPairSync('ec', { namedCurve: 'P-256' }),
      'P-384': generateKeyPairSync('ec', { namedCurve: 'P-384' }),
      'P-521': generateKeyPairSync('ec', { namedCurve: 'P-521' }),
      Ed25519: generateKeyPairSync('ed25519'),
    };
    for (const alg of HARNESS_SIGNING_ALGS) {
      const info: JwsAlgInfo = JWS_ALGS[alg];
      const pair = pairs[info.kty === 'RSA' ? 'RSA' : (info.crv as 'P-256')];
      const jwk = pair.privateKey.export({ format: 'jwk' }) as Jwk;
      const jws = signJws({ alg }, { sub: 'x' }, jwk);
      const { protectedHeader } = await jose.compactVerify(jws, pair.publicKey, { algorithms: [alg] });
      expect(protectedHeader.alg).toBe(alg);
    }
  });
});

describe('protocol/jwk.ts', () => {
  it('gives the RFC 7638 §3.1 thumbprint', () => {
    const jwk = {
      kty: 'RSA',
      n: [
        '0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJE',
        'CPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2Q',
        'vzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6',
        'WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw',
      ].join(''),
      e: 'AQAB',
      alg: 'RS256',
      kid: '2011-04-29',
    };
    expect(jwkThumbprint(jwk)).toBe('NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs');
    expect(() => jwkThumbprint({ kty: 'oct', k: 'x' })).toThrow(/no thumbprint/);
  });
});

describe('protocol/jwk.ts private members', () => {
  it('lists the private members of RSA, EC, OKP and oct keys, and finds every string they hold', () => {
    expect([...PRIVATE_JWK_MEMBERS].sort()).toEqual(['d', 'dp', 'dq', 'k', 'oth', 'p', 'q', 'qi']);
    const rsa = { kty: 'RSA', n: 'N', e: 'AQAB', d: 'D', p: 'P', oth: [{ r: 'R', d: 'OD', t: 'T' }] };
    expect(privateJwkStrings(rsa).sort()).toEqual(['D', 'OD', 'P', 'R', 'T']);
    expect(privateJwkStrings({ kty: 'oct', k: 'K' })).toEqual(['K']);
    expect(privateJwkStrings({ kty: 'EC', crv: 'P-256', x: 'X', y: 'Y' })).toEqual([]);
  });
});

describe('protocol/scope.ts', () => {
  it('splits on spaces only, drops empty tokens, keeps order and case', () => {
    expect(scopeTokens('openid  profile Email')).toEqual(['openid', 'profile', 'Email']);
    expect(scopeTokens('')).toEqual([]);
    expect(hasScopeToken('openid2 profile', 'openid')).toBe(false);
    expect(hasScopeToken('a offline_access', 'offline_access')).toBe(true);
    expect(hasScopeToken(undefined, 'openid')).toBe(false);
  });
});

describe('protocol/syntax.ts', () => {
  it('error_description, error_uri and scope-token follow RFC 6749 Appendix A', () => {
    expect(ERROR_DESCRIPTION_FORMAT.test('the code was used: twice')).toBe(true);
    expect(ERROR_DESCRIPTION_FORMAT.test('say "no"')).toBe(false);
    expect(ERROR_DESCRIPTION_FORMAT.test('a\\b')).toBe(false);
    expect(ERROR_DESCRIPTION_FORMAT.test('é')).toBe(false);
    expect(ERROR_URI_FORMAT.test('https://as.example/errors#code')).toBe(true);
    expect(ERROR_URI_FORMAT.test('https://as.example/a b')).toBe(false);
    expect(SCOPE_TOKEN_FORMAT.test('api:read')).toBe(true);
    expect(SCOPE_TOKEN_FORMAT.test('api read')).toBe(false);
  });
});

describe('names shared across the one-way imports', () => {
  it('client roles and flaw names are unique lists', () => {
    expect(new Set(CLIENT_ROLES).size).toBe(CLIENT_ROLES.length);
    expect(FLAW_NAMES.length).toBeGreaterThan(50);
  });

  it('a scenario may catch only a planted flaw (the type check fails on a typo)', () => {
    const ok: ScenarioDefinition['catches'] = ['state-dropped'];
    // @ts-expect-error 'state-droped' is not a planted flaw: `npx tsc` fails if this line type-checks.
    const typo: ScenarioDefinition['catches'] = ['state-droped'];
    expect([ok, typo]).toHaveLength(2);
  });
});

describe('protocol/jws.ts key generation', () => {
  it('makes a key of the type and curve each asymmetric algorithm signs with', () => {
    for (const alg of ['RS256', 'PS256', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const) {
      const jwk = generateKeyPairFor(alg).publicKey.export({ format: 'jwk' });
      expect(jwk.kty, alg).toBe(JWS_ALGS[alg].kty);
      if (JWS_ALGS[alg].crv) expect(jwk.crv, alg).toBe(JWS_ALGS[alg].crv);
      if (jwk.kty === 'RSA') expect(Buffer.from(jwk.n as string, 'base64url').length * 8).toBe(2048);
    }
  });
});

describe('protocol/jwt-profiles.ts', () => {
  it('RFC 9068 §2.1: at+jwt and application/at+jwt, in any case; nothing else', () => {
    for (const typ of ['at+jwt', 'application/at+jwt', 'AT+JWT', 'Application/At+Jwt'])
      expect(isAccessTokenJwtTyp(typ)).toBe(true);
    for (const typ of ['JWT', 'jwt', 'at+JWT+x', 'application/jwt', '', undefined, 1])
      expect(isAccessTokenJwtTyp(typ)).toBe(false);
  });

  it('RFC 9068 §2.2: the JSON types of the required claims', () => {
    expect(accessTokenClaimWellTyped('exp', 1_700_000_000)).toBe(true);
    expect(accessTokenClaimWellTyped('exp', '1700000000')).toBe(false);
    expect(accessTokenClaimWellTyped('aud', 'https://rs.example')).toBe(true);
    expect(accessTokenClaimWellTyped('aud', ['https://a.example', 'https://b.example'])).toBe(true);
    expect(accessTokenClaimWellTyped('aud', [])).toBe(false);
    expect(accessTokenClaimWellTyped('aud', ['a', 1])).toBe(false);
    expect(accessTokenClaimWellTyped('client_id', 's6BhdRkqt3')).toBe(true);
    expect(accessTokenClaimWellTyped('jti', '')).toBe(false);
    expect(accessTokenClaimWellTyped('sub', undefined)).toBe(false);
  });

  it('a JWS in compact serialization is read; a JWE, an opaque token or a broken part is not', () => {
    const jws = signJws(
      { typ: 'at+jwt' },
      { sub: 'alice' },
      generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }) as Jwk,
    );
    expect(compactJwsParts(jws)).toEqual({ header: { typ: 'at+jwt', alg: 'ES256' }, payload: { sub: 'alice' } });
    expect(compactJwsParts('2YotnFZFEjr1zCsicMWpAA')).toBeUndefined();
    expect(compactJwsParts('a.b.c.d.e')).toBeUndefined();
    expect(compactJwsParts(`${Buffer.from('{"typ":"JWT"}').toString('base64url')}.e30.`)).toBeUndefined();
    expect(compactJwsParts(`${Buffer.from('{"alg":"none"}').toString('base64url')}.W10.`)).toBeUndefined();
  });
});
