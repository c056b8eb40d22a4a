/**
 * Compact JWS signing with node:crypto, synchronously (the harness signs client assertions and
 * DPoP proofs while it builds a request). Keys are JWKs; the algorithm follows the key.
 */
import { createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import { signatureOptions } from '../../protocol/jws.ts';
import { noteBuilt } from '../redact/built.ts';
import { HarnessError } from '../model/failures.ts';
import { errorMessage, isOneOf } from '../../protocol/guards.ts';

/** The algorithms the harness signs with: a subset of protocol/jws.ts's table. */
export const HARNESS_SIGNING_ALGS = ['RS256', 'PS256', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;
export type JwsAlg = (typeof HARNESS_SIGNING_ALGS)[number];

export type Jwk = Record<string, unknown> & { kty: string };

const b64 = (value: unknown) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

const EC_ALGS = new Map<string, JwsAlg>([
  ['P-256', 'ES256'],
  ['P-384', 'ES384'],
  ['P-521', 'ES512'],
]);

/** The algorithm a key signs with: its own `alg`, else the usual one for its type and curve. */
export function algOf(jwk: Jwk): JwsAlg {
  if (isOneOf(HARNESS_SIGNING_ALGS, jwk.alg)) return jwk.alg;
  if (jwk.kty === 'RSA') return 'RS256';
  if (jwk.kty === 'OKP') return 'EdDSA';
  if (jwk.kty === 'EC') return EC_ALGS.get(String(jwk.crv)) ?? 'ES256';
  throw new HarnessError(`a ${jwk.kty} key cannot sign a JWS here`);
}

/** The public members of a private JWK (what goes into a DPoP proof's jwk header). */
export function publicJwkOf(jwk: Jwk): Jwk {
  return jwkOf(createPublicKey(createPrivateKey({ key: jwk as never, format: 'jwk' })));
}

/** A key as a JWK (node:crypto's export), its kty read, not assumed. */
export function jwkOf(key: KeyObject): Jwk {
  const jwk = key.export({ format: 'jwk' });
  const { kty } = jwk;
  if (typeof kty !== 'string') throw new HarnessError('node:crypto exported a JWK without kty');
  return { ...jwk, kty };
}

function keyObject(jwk: Jwk): KeyObject {
  try {
    return createPrivateKey({ key: jwk as never, format: 'jwk' });
  } catch (error) {
    throw new HarnessError(`the private JWK cannot be imported: ${errorMessage(error)}`);
  }
}

/** A compact JWS of `payload`, signed by `jwk` with `header` (alg defaults to the key's). */
export function signJws(header: Record<string, unknown>, payload: Record<string, unknown>, jwk: Jwk): string {
  const alg = (header.alg as JwsAlg | undefined) ?? algOf(jwk);
  const signedHeader = { ...header, alg };
  const input = `${b64(signedHeader)}.${b64(payload)}`;
  const key = keyObject(jwk);
  const data = Buffer.from(input);
  const parameters = signatureOptions(String(alg));
  if (!parameters) throw new HarnessError(`unsupported JWS alg ${String(alg)}`);
  const { digest, ...options } = parameters;
  const signature = sign(digest, data, { key, ...options });
  const jws = `${input}.${signature.toString('base64url')}`;
  // The redactor learns what it holds (built.ts): a token inside is masked whatever becomes of the JWS.
  noteBuilt(jws, { header: signedHeader, payload });
  return jws;
}

/** An unsecured JWS (alg none, RFC 7519 §6): for checks that it is refused. */
export function unsecuredJws(header: Record<string, unknown>, payload: Record<string, unknown>): string {
  const unsecured = { ...header, alg: 'none' };
  const jws = `${b64(unsecured)}.${b64(payload)}.`;
  noteBuilt(jws, { header: unsecured, payload });
  return jws;
}
