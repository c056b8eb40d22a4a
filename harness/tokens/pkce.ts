/** PKCE helpers (RFC 7636 §4.1–4.2); the S256 transform itself is protocol/pkce.ts. */
import { randomBytes } from 'node:crypto';
import { s256 } from '../../protocol/pkce.ts';

export { s256 } from '../../protocol/pkce.ts';

export interface Pkce {
  verifier: string;
  challenge: string;
  method: 'S256';
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
