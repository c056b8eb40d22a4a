/**
 * PKCE facts (RFC 7636): the code_verifier alphabet and lengths (§4.1), the S256 transform (§4.2)
 * and the shape of an S256 challenge.
 */
import { createHash } from 'node:crypto';

export const VERIFIER_MIN_LENGTH = 43;
export const VERIFIER_MAX_LENGTH = 128;

/** §4.1: unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~". */
export const UNRESERVED = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~'];

/** §4.1: code-verifier = 43*128unreserved. */
export const VERIFIER_FORMAT = /^[A-Za-z0-9\-._~]{43,128}$/;

/** §4.2: BASE64URL(SHA256(...)) of 32 octets is always 43 characters of the base64url alphabet. */
export const S256_CHALLENGE_FORMAT = /^[A-Za-z0-9_-]{43}$/;

/**
 * code_challenge = BASE64URL-ENCODE(SHA256(ASCII(code_verifier))) (RFC 7636 §4.2).
 *
 * ASCII(...) is defined for the §4.1 alphabet, where the ASCII and the UTF-8 octets are the same.
 * A verifier outside it is invalid (a server must refuse it, §4.1), but the harness still sends
 * such verifiers to check that, and a flawed server may hash them: both hash the UTF-8 octets.
 * Node's 'ascii' encoding would keep only the low byte of each UTF-16 unit, so "ũ" (U+0169)
 * would hash like "i" (0x69); UTF-8 keeps distinct verifiers distinct.
 */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'utf8').digest('base64url');
}
