/**
 * Compact JWS signing (RFC 7515 §7.1) of the tokens the server mints, with node:crypto's
 * asynchronous sign: the private-key operation runs on libuv's thread pool, off the event loop.
 *
 * This is the token endpoint's hot path (`npm run bench`). jose's SignJWT (claim and header
 * validation, then WebCrypto with its WebIDL conversions) cost the event loop about 60 µs per
 * token on the bench machine, where the whole rest of a client_credentials request costs about
 * 140 µs; this costs a few. Verification of presented tokens stays with jose (verify.ts).
 */
import { sign, type KeyObject } from 'node:crypto';
import { signatureOptions } from '../protocol/jws.ts';
import type { SigningAlg } from './options.ts';

/** The node:crypto parameters of each JWS algorithm (RFC 7518 §3.3–3.5, RFC 8037 §3.1): protocol/jws.ts. */
export { type SignatureOptions, signatureOptions } from '../protocol/jws.ts';

const base64url = (json: unknown) => Buffer.from(JSON.stringify(json)).toString('base64url');

/** `BASE64URL(header) . BASE64URL(payload) . BASE64URL(signature)`, signed on the thread pool. */
export function signCompact(
  header: { alg: SigningAlg; kid: string; typ: string },
  payload: object,
  key: KeyObject,
): Promise<string> {
  const input = `${base64url(header)}.${base64url(payload)}`;
  const { digest, ...options } = signatureOptions(header.alg);
  return new Promise((resolve, reject) => {
    sign(digest, Buffer.from(input), { key, ...options }, (error, signature) => {
      if (error) reject(error);
      else resolve(`${input}.${signature.toString('base64url')}`);
    });
  });
}
