/**
 * Signing keys: a key set with one current signing key and older keys kept for verification
 * after a rotation. The JWKS lists all of them, public members only. Keys are node KeyObjects,
 * generated synchronously so that a server can be created without awaiting.
 */
import { createHash, generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { JWK } from 'jose';
import type { SigningAlg } from './options.ts';

export interface SigningKey {
  kid: string;
  alg: SigningAlg;
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** Public members plus kid, alg and use. */
  publicJwk: JWK;
}

export const SIGNING_ALGS: readonly SigningAlg[] = ['RS256', 'PS256', 'ES256', 'EdDSA'];

function generatePair(alg: SigningAlg): { privateKey: KeyObject; publicKey: KeyObject } {
  switch (alg) {
    case 'RS256':
    case 'PS256':
      return generateKeyPairSync('rsa', { modulusLength: 2048 });
    case 'ES256':
      return generateKeyPairSync('ec', { namedCurve: 'P-256' });
    case 'EdDSA':
      return generateKeyPairSync('ed25519');
  }
}

/** RFC 7638 thumbprint: SHA-256 over the required members in lexicographic order. */
export function jwkThumbprint(jwk: JWK): string {
  const required: Record<string, string[]> = { RSA: ['e', 'kty', 'n'], EC: ['crv', 'kty', 'x', 'y'], OKP: ['crv', 'kty', 'x'] };
  const members = required[jwk.kty ?? ''];
  if (!members) throw new Error(`no thumbprint for key type ${jwk.kty}`);
  const canonical = JSON.stringify(Object.fromEntries(members.map((m) => [m, (jwk as Record<string, unknown>)[m]])));
  return createHash('sha256').update(canonical).digest('base64url');
}

export function generateSigningKey(alg: SigningAlg): SigningKey {
  const { privateKey, publicKey } = generatePair(alg);
  const jwk = publicKey.export({ format: 'jwk' }) as JWK;
  const kid = jwkThumbprint(jwk);
  return { kid, alg, privateKey, publicKey, publicJwk: { ...jwk, kid, alg, use: 'sig' } };
}

export class KeySet {
  /** Newest first: keys[0] signs, the rest only verify. */
  #keys: SigningKey[];

  constructor(first: SigningKey) {
    this.#keys = [first];
  }

  static generate(alg: SigningAlg = 'RS256'): KeySet {
    return new KeySet(generateSigningKey(alg));
  }

  get current(): SigningKey {
    return this.#keys[0]!;
  }

  get all(): readonly SigningKey[] {
    return this.#keys;
  }

  /** A new current key (of `alg`, default the current one's); up to `keep` old ones keep verifying. */
  rotate(alg: SigningAlg = this.current.alg, keep = 2): SigningKey {
    const next = generateSigningKey(alg);
    this.#keys = [next, ...this.#keys].slice(0, keep + 1);
    return next;
  }

  find(kid: string): SigningKey | undefined {
    return this.#keys.find((key) => key.kid === kid);
  }

  /** The algorithms this set can verify: the allow-list for every presented token. */
  get algorithms(): SigningAlg[] {
    return [...new Set(this.#keys.map((key) => key.alg))];
  }

  /** The public JWK Set (RFC 7517 §5). */
  publicJwks(): { keys: JWK[] } {
    return { keys: this.#keys.map((key) => ({ ...key.publicJwk })) };
  }

  /** Full private JWKs: for the jwks-leaks-private flaw only. */
  privateJwks(): { keys: JWK[] } {
    return { keys: this.#keys.map((key) => ({ ...(key.privateKey.export({ format: 'jwk' }) as JWK), ...key.publicJwk })) };
  }
}
