/** PKCE (RFC 7636): formats and the S256 transform. */
import { createHash } from 'node:crypto';
import { safeEqual } from './http/client-auth.ts';
import type { PkceMethod } from './store/store.ts';

/** RFC 7636 §4.1: 43–128 characters of [A-Z] / [a-z] / [0-9] / "-" / "." / "_" / "~". */
export const VERIFIER_FORMAT = /^[A-Za-z0-9\-._~]{43,128}$/;

/** RFC 7636 §4.2: BASE64URL(SHA256(verifier)) is always 43 characters. */
export const S256_CHALLENGE_FORMAT = /^[A-Za-z0-9_-]{43}$/;

export const s256 = (verifier: string) => createHash('sha256').update(verifier, 'ascii').digest('base64url');

/** RFC 7636 §4.6, compared in constant time. */
export function verifierMatches(verifier: string, challenge: string, method: PkceMethod): boolean {
  return safeEqual(method === 'S256' ? s256(verifier) : verifier, challenge);
}
