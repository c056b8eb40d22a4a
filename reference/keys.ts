/**
 * Signing keys: a key set with one current signing key and older keys kept for verification
 * after a rotation. The JWKS lists all of them, public members only. Keys are node KeyObjects,
 * generated synchronously so that a server can be created without awaiting.
 *
 * Rotation (docs/service-spec.md): a new key signs from then on; an old key stays in the set (and the JWKS)
 * until every token it signed has expired, then it is dropped. The set learns those expiries
 * from `forSigning`, and reads time from the server's clock.
 */
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import type { JWK } from 'jose';
import { z } from 'zod';
import { jwkThumbprint } from '../protocol/jwk.ts';
import { generateKeyPairFor } from '../protocol/jws.ts';

/** The JWS algorithms the reference signs with. */
export type SigningAlg = 'RS256' | 'ES256' | 'PS256' | 'EdDSA';

export interface SigningKey {
  kid: string;
  alg: SigningAlg;
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** Public members plus kid, alg and use. */
  publicJwk: JWK;
}

export const SIGNING_ALGS: readonly SigningAlg[] = ['RS256', 'PS256', 'ES256', 'EdDSA'];

export function isSigningAlg(value: string): value is SigningAlg {
  return SIGNING_ALGS.some((alg) => alg === value);
}

export { jwkThumbprint } from '../protocol/jwk.ts';

/** A key as a JWK (RFC 7517), as node exports it. */
const jwkOf = (key: KeyObject): JWK => key.export({ format: 'jwk' });

export function generateSigningKey(alg: SigningAlg): SigningKey {
  if (!isSigningAlg(alg))
    throw new Error(`signing alg "${String(alg)}" is not supported; use one of ${SIGNING_ALGS.join(', ')}`);
  const { privateKey, publicKey } = generateKeyPairFor(alg);
  const jwk = jwkOf(publicKey);
  const kid = jwkThumbprint(jwk);
  return { kid, alg, privateKey, publicKey, publicJwk: { ...jwk, kid, alg, use: 'sig' } };
}

/** A signing key from its private JWK (with alg), e.g. one shared by several instances. */
export function signingKeyFromPrivateJwk(jwk: JWK): SigningKey {
  const alg = jwk.alg ?? '';
  if (!isSigningAlg(alg)) throw new Error(`a shared signing key needs alg ${SIGNING_ALGS.join(', ')}, not "${alg}"`);
  const privateKey = createPrivateKey({ key: jwk, format: 'jwk' });
  const publicKey = createPublicKey(privateKey);
  const publicMembers = jwkOf(publicKey);
  const kid = jwkThumbprint(publicMembers);
  return { kid, alg, privateKey, publicKey, publicJwk: { ...publicMembers, kid, alg, use: 'sig' } };
}

/** The private JWK of a signing key (with alg): for sharing it with other instances, never for publishing. */
export function privateJwkOf(key: SigningKey): JWK {
  return { ...jwkOf(key.privateKey), alg: key.alg };
}

/**
 * OIDC Core §15.1: an OP MUST support RS256 for ID tokens (and OIDC Discovery §3 has it listed), so a key set whose
 * current key is of another alg may keep an RS256 key beside it (KeySetOptions.rs256Beside), for the clients that ask
 * for RS256 (id_token_signed_response_alg, OIDC Registration §2: its default). The signing-es256 variant does.
 */
export const REQUIRED_ID_TOKEN_ALG: SigningAlg = 'RS256';

/** A shared signing key as the store holds it: a private JWK with its alg (privateJwkOf). */
const SHARED_JWK = z.looseObject({ kty: z.string(), alg: z.string() });

/** Where instances agree on one value: the first writer wins, every caller gets the winner (RedisStore.shared). */
export interface SharedValues {
  shared(name: string, value: string): Promise<string>;
}

/**
 * A key set whose signing key is shared by every instance on the same store, so that a token one
 * instance signs verifies on every other. A rotation stays local to the instance that rotates.
 */
export async function sharedKeySet(
  store: SharedValues,
  alg: SigningAlg = 'RS256',
  options: KeySetOptions = {},
): Promise<KeySet> {
  const sharedKey = async (of: SigningAlg) => {
    const candidate = JSON.stringify(privateJwkOf(generateSigningKey(of)));
    return signingKeyFromPrivateJwk(SHARED_JWK.parse(JSON.parse(await store.shared(`signing-key:${of}`, candidate))));
  };
  const alternates =
    !options.rs256Beside || alg === REQUIRED_ID_TOKEN_ALG ? [] : [await sharedKey(REQUIRED_ID_TOKEN_ALG)];
  return new KeySet(await sharedKey(alg), { ...options, alternates });
}

export interface KeySetOptions {
  /** An RS256 key beside a current key of another alg (REQUIRED_ID_TOKEN_ALG), kept across rotations. */
  rs256Beside?: boolean;
  /** Clock in epoch milliseconds (the server's); decides when a rotated-out key is dropped. */
  now?: () => number;
}

export class KeySet {
  /** Newest first: keys[0] signs, the rest only verify. */
  #keys: SigningKey[];
  /** kid → the latest expiry (epoch ms) of a token the key signed. */
  readonly #signedUntil = new Map<string, number>();
  readonly #now: () => number;
  /** Keys of other algs that sign only when asked for theirs (REQUIRED_ID_TOKEN_ALG); kept across rotations. */
  readonly #alternates: SigningKey[];

  constructor(first: SigningKey, options: KeySetOptions & { alternates?: readonly SigningKey[] } = {}) {
    this.#keys = [first];
    this.#now = options.now ?? Date.now;
    this.#alternates = [...(options.alternates ?? [])];
  }

  /** A fresh key of `alg`, and with `rs256Beside` an RS256 key beside it when `alg` is another. */
  static generate(alg: SigningAlg = 'RS256', options: KeySetOptions = {}): KeySet {
    const beside = options.rs256Beside && alg !== REQUIRED_ID_TOKEN_ALG;
    const alternates = beside ? [generateSigningKey(REQUIRED_ID_TOKEN_ALG)] : [];
    return new KeySet(generateSigningKey(alg), { ...options, alternates });
  }

  get current(): SigningKey {
    return this.#keys[0]!;
  }

  /** The current key, every rotated-out key that still has unexpired tokens, and the alternates. */
  get all(): readonly SigningKey[] {
    return [...this.#retained(), ...this.#alternates];
  }

  /** The algs ID tokens can be signed with, the current key's first (id_token_signing_alg_values_supported). */
  get signingAlgs(): SigningAlg[] {
    return [...new Set([this.current.alg, ...this.#alternates.map((key) => key.alg)])];
  }

  /** The key that signs with `alg`: the current key, or an alternate of that alg; the current one otherwise. */
  signerFor(alg: SigningAlg | undefined): SigningKey {
    if (alg === undefined || alg === this.current.alg) return this.current;
    return this.#alternates.find((key) => key.alg === alg) ?? this.current;
  }

  /**
   * The current key (or the one of `alg`: signerFor), for signing a token that expires at `expiresAt` (epoch ms): the
   * key stays in the set at least until then, even after a rotation.
   */
  forSigning(expiresAt: number, alg?: SigningAlg): SigningKey {
    const key = this.signerFor(alg);
    this.#signedUntil.set(key.kid, Math.max(expiresAt, this.#signedUntil.get(key.kid) ?? 0));
    return key;
  }

  /**
   * A new current key (of `alg`, default the current one's); the old ones verify until their tokens
   * expire. `keepOld: false` drops them at once (the rotation-drops-old-key flaw only).
   */
  rotate(alg: SigningAlg = this.current.alg, options: { keepOld?: boolean } = {}): SigningKey {
    const next = generateSigningKey(alg);
    this.#keys = options.keepOld === false ? [next] : [next, ...this.#retained()];
    return next;
  }

  find(kid: string): SigningKey | undefined {
    return this.all.find((key) => key.kid === kid);
  }

  /** The algorithms this set can verify: the allow-list for every presented token. */
  get algorithms(): SigningAlg[] {
    return [...new Set(this.all.map((key) => key.alg))];
  }

  /** The public JWK Set (RFC 7517 §5). */
  publicJwks(): { keys: JWK[] } {
    return { keys: this.all.map((key) => ({ ...key.publicJwk })) };
  }

  /** Full private JWKs: for the jwks-leaks-private flaw only. */
  privateJwks(): { keys: JWK[] } {
    return {
      keys: this.all.map((key) => ({ ...jwkOf(key.privateKey), ...key.publicJwk })),
    };
  }

  /** Drops every rotated-out key whose tokens have all expired. */
  #retained(): SigningKey[] {
    const now = this.#now();
    this.#keys = this.#keys.filter((key, i) => {
      if (i === 0 || (this.#signedUntil.get(key.kid) ?? 0) > now) return true;
      this.#signedUntil.delete(key.kid);
      return false;
    });
    return this.#keys;
  }
}
