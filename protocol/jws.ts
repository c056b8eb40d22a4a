/**
 * The JWS algorithm table (RFC 7518 §3.1, RFC 8037 §3.1): for each `alg`, the key type it signs
 * with, the hash it names and the node:crypto parameters of its signature. One table for the
 * harness (client assertions, DPoP proofs, at_hash checks), the generators (tampered tokens) and
 * the reference (the tokens it mints).
 */
import { constants, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { keysOf } from './guards.ts';

export type HashName = 'sha256' | 'sha384' | 'sha512';

export interface JwsAlgInfo {
  /** The JWK key type that signs (RFC 7518 §6.1); `oct` for the HMAC algorithms. */
  kty: 'RSA' | 'EC' | 'OKP' | 'oct';
  /** The hash the algorithm names. Ed25519 hashes with SHA-512 internally (RFC 8032 §5.1). */
  hash: HashName;
  /** The curve of an EC or OKP key (RFC 7518 §3.4, RFC 8037 §3.1). */
  crv?: 'P-256' | 'P-384' | 'P-521' | 'Ed25519';
}

const rsa = (hash: HashName): JwsAlgInfo => ({ kty: 'RSA', hash });

export const JWS_ALGS = {
  HS256: { kty: 'oct', hash: 'sha256' },
  HS384: { kty: 'oct', hash: 'sha384' },
  HS512: { kty: 'oct', hash: 'sha512' },
  RS256: rsa('sha256'),
  RS384: rsa('sha384'),
  RS512: rsa('sha512'),
  PS256: rsa('sha256'),
  PS384: rsa('sha384'),
  PS512: rsa('sha512'),
  ES256: { kty: 'EC', hash: 'sha256', crv: 'P-256' },
  ES384: { kty: 'EC', hash: 'sha384', crv: 'P-384' },
  ES512: { kty: 'EC', hash: 'sha512', crv: 'P-521' },
  EdDSA: { kty: 'OKP', hash: 'sha512', crv: 'Ed25519' },
  // The fully specified name of EdDSA over Ed25519 (RFC 9864).
  Ed25519: { kty: 'OKP', hash: 'sha512', crv: 'Ed25519' },
} as const satisfies Record<string, JwsAlgInfo>;

export type JwsAlg = keyof typeof JWS_ALGS;

export function isJwsAlg(alg: string): alg is JwsAlg {
  return Object.hasOwn(JWS_ALGS, alg);
}

export type AsymmetricAlg = Exclude<JwsAlg, 'HS256' | 'HS384' | 'HS512'>;

/** The asymmetric algorithms: what a verifier may accept (RFC 8725 §3.1: never none, never HS* here). */
export const ASYMMETRIC_ALGS: readonly AsymmetricAlg[] = keysOf(JWS_ALGS).filter(
  (alg): alg is AsymmetricAlg => JWS_ALGS[alg].kty !== 'oct',
);

/** The hash an algorithm names, or undefined for `none` and names outside the table. */
export function hashOfAlg(alg: string): HashName | undefined {
  return isJwsAlg(alg) ? JWS_ALGS[alg].hash : undefined;
}

/** The node:crypto `sign` parameters of an asymmetric algorithm. */
export interface SignatureOptions {
  /** The digest node:crypto hashes with; null for Ed25519, which hashes internally. */
  digest: HashName | null;
  padding?: number;
  saltLength?: number;
  dsaEncoding?: 'ieee-p1363';
}

/**
 * node:crypto parameters for `sign(digest, data, { key, ...options })`; undefined for HS* (an HMAC,
 * not a signature) and for names outside the table.
 */
export function signatureOptions(alg: AsymmetricAlg): SignatureOptions;
export function signatureOptions(alg: string): SignatureOptions | undefined;
export function signatureOptions(alg: string): SignatureOptions | undefined {
  if (!isJwsAlg(alg)) return undefined;
  const { kty, hash } = JWS_ALGS[alg];
  switch (kty) {
    case 'oct':
      return undefined;
    case 'OKP':
      return { digest: null };
    // JWS carries the raw R || S pair, not DER (RFC 7518 §3.4).
    case 'EC':
      return { digest: hash, dsaEncoding: 'ieee-p1363' };
    case 'RSA':
      // RSASSA-PSS with MGF1 of the same hash and a salt as long as the hash (RFC 7518 §3.5).
      return alg.startsWith('PS')
        ? { digest: hash, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: Number(hash.slice(3)) / 8 }
        : { digest: hash };
  }
}

/**
 * A fresh key pair that signs with `alg`: RSA of 2048 bits (RFC 7518 §3.3, §3.5: at least 2048), an EC key on the
 * algorithm's curve (§3.4), an Ed25519 key (RFC 8037 §3.1). The one key generator of the harness and the reference.
 */
export function generateKeyPairFor(alg: AsymmetricAlg): { privateKey: KeyObject; publicKey: KeyObject } {
  const { kty, crv }: JwsAlgInfo = JWS_ALGS[alg];
  if (kty === 'EC' && crv !== undefined) return generateKeyPairSync('ec', { namedCurve: crv });
  if (kty === 'OKP') return generateKeyPairSync('ed25519');
  return generateKeyPairSync('rsa', { modulusLength: 2048 });
}
