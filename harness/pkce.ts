/** PKCE helpers (RFC 7636 §4.1–4.2). */
import { createHash, randomBytes } from 'node:crypto';

export interface Pkce {
  verifier: string;
  challenge: string;
  method: 'S256';
}

/** code_challenge = BASE64URL(SHA256(ASCII(code_verifier))) (RFC 7636 §4.2). */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** A fresh high-entropy verifier: 32 random octets, base64url-encoded (43 characters, §4.1). */
export function createPkce(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: s256(verifier), method: 'S256' };
}

/** Random URL-safe text for state and nonce values. */
export function randomToken(bytes = 16): string {
  return randomBytes(bytes).toString('base64url');
}
