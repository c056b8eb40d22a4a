/** PKCE (RFC 7636): the §4.6 comparison; formats and the S256 transform are protocol/pkce.ts. */
import { s256 } from '../protocol/pkce.ts';
import { safeEqual } from './safe-equal.ts';
import type { PkceMethod } from './store/store.ts';

export { S256_CHALLENGE_FORMAT, VERIFIER_FORMAT, s256 } from '../protocol/pkce.ts';

/** RFC 7636 §4.6, compared in constant time. */
export function verifierMatches(verifier: string, challenge: string, method: PkceMethod): boolean {
  return safeEqual(method === 'S256' ? s256(verifier) : verifier, challenge);
}
