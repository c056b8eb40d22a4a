/** Constant-time string comparison, for secrets, PKCE verifiers, CSRF tokens and passwords. */
import { createHash, timingSafeEqual } from 'node:crypto';

/** The SHA-256 digest of a string: what safeEqual compares, so that lengths may differ. */
export const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/** Constant-time comparison of two strings of any length (compares their SHA-256 digests). */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}
