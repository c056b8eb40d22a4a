/** JWK facts (RFC 7517, RFC 7638). */
import { createHash } from 'node:crypto';

/** RFC 7638 §3.2: the members a thumbprint covers, per key type (RFC 8037 §2 for OKP). */
export const THUMBPRINT_MEMBERS: Readonly<Record<string, readonly string[]>> = {
  EC: ['crv', 'kty', 'x', 'y'],
  RSA: ['e', 'kty', 'n'],
  OKP: ['crv', 'kty', 'x'],
};

/**
 * JWK thumbprint (RFC 7638 §3) with SHA-256, base64url: the required members in lexicographic order,
 * no whitespace. What a DPoP-bound token's cnf.jkt carries (RFC 9449 §6.1). Throws for other key types.
 */
export function jwkThumbprint(jwk: { kty?: unknown } & Record<string, unknown>): string {
  const members = THUMBPRINT_MEMBERS[String(jwk.kty)];
  if (!members) throw new Error(`no thumbprint for a ${String(jwk.kty)} key`);
  const canonical = `{${members.map((m) => `${JSON.stringify(m)}:${JSON.stringify(jwk[m])}`).join(',')}}`;
  return createHash('sha256').update(canonical).digest('base64url');
}

/**
 * The members of a JWK that are secret: the private members of RSA (RFC 7518 §6.3.2, `oth` an array of objects of
 * them), EC (§6.2.2) and OKP (RFC 8037 §2) keys, and a symmetric key's `k` (§6.4.1).
 */
export const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;

/** Every string a JWK holds in its secret members (those inside `oth` too). */
export function privateJwkStrings(jwk: Readonly<Record<string, unknown>>): string[] {
  const strings = (value: unknown): string[] => {
    if (typeof value === 'string') return value ? [value] : [];
    if (Array.isArray(value)) return value.flatMap(strings);
    if (value && typeof value === 'object') return Object.values(value).flatMap(strings);
    return [];
  };
  return PRIVATE_JWK_MEMBERS.flatMap((m) => strings(jwk[m]));
}
