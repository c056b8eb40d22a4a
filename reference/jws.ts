/**
 * Compact JWS signing (RFC 7515 §7.1) of the tokens the server mints, with node:crypto's
 * asynchronous sign: the private-key operation runs on libuv's thread pool, off the event loop.
 *
 * This is the token endpoint's hot path (`npm run bench`). jose's SignJWT (claim and header
 * validation, then WebCrypto with its WebIDL conversions) cost the event loop about 60 µs per
 * token on the bench machine, where the whole rest of a client_credentials request costs about
 * 140 µs; this costs a few. Verification of presented tokens stays with jose (verify.ts).
 */
import { type KeyObject, sign, type SignKeyObjectInput } from 'node:crypto';
import { type HashName, signatureOptions } from '../protocol/jws.ts';
import type { SigningAlg } from './options.ts';

/** The node:crypto parameters of each JWS algorithm (RFC 7518 §3.3–3.5, RFC 8037 §3.1): protocol/jws.ts. */
export { type SignatureOptions, signatureOptions } from '../protocol/jws.ts';

const base64url = (json: unknown) => Buffer.from(JSON.stringify(json)).toString('base64url');

/** What is the same for every token a key signs: the sign parameters and the encoded headers (by alg, kid and typ). */
interface PerKey {
  digest: HashName | null;
  options: SignKeyObjectInput;
  headers: Map<string, string>;
}

/** Made once per key and kept as long as the key is (a rotated-out key takes its entry with it). */
const perKey = new WeakMap<KeyObject, PerKey>();

function prepared(key: KeyObject, alg: SigningAlg): PerKey {
  let known = perKey.get(key);
  if (!known) {
    const { digest, ...options } = signatureOptions(alg);
    known = { digest, options: { key, ...options }, headers: new Map() };
    perKey.set(key, known);
  }
  return known;
}

/** `BASE64URL(header) . BASE64URL(payload) . BASE64URL(signature)`, signed on the thread pool. */
export function signCompact(
  header: { alg: SigningAlg; kid: string; typ: string },
  payload: object,
  key: KeyObject,
): Promise<string> {
  const { digest, options, headers } = prepared(key, header.alg);
  // The header's members in this order, alg first: the cache key names all three.
  const headerKey = `${header.alg} ${header.kid} ${header.typ}`;
  let encodedHeader = headers.get(headerKey);
  if (encodedHeader === undefined) {
    encodedHeader = base64url({ alg: header.alg, kid: header.kid, typ: header.typ });
    headers.set(headerKey, encodedHeader);
  }
  const input = `${encodedHeader}.${base64url(payload)}`;
  return new Promise((resolve, reject) => {
    // The signing input is ASCII (base64url and a dot): latin1 gives the same bytes as UTF-8, without the encoder.
    sign(digest, Buffer.from(input, 'latin1'), options, (error, signature) => {
      if (error) reject(error);
      else resolve(`${input}.${signature.toString('base64url')}`);
    });
  });
}
