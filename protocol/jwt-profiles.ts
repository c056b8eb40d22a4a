/**
 * JWT profiles the server issues or reads: RFC 9068 JWT access tokens and RFC 9101 request objects.
 */
import { isRecord } from './guards.ts';

/**
 * RFC 9068 §2.1: a JWT access token's `typ` is `at+jwt` (SHOULD, the short form) or `application/at+jwt`; media
 * type names are compared without regard to case (RFC 7515 §4.1.9, RFC 2045 §5.1).
 */
export const ACCESS_TOKEN_JWT_TYP = 'at+jwt';

export function isAccessTokenJwtTyp(typ: unknown): boolean {
  if (typeof typ !== 'string') return false;
  const lower = typ.toLowerCase();
  return lower === ACCESS_TOKEN_JWT_TYP || lower === `application/${ACCESS_TOKEN_JWT_TYP}`;
}

/** RFC 9068 §2.2: the claims a JWT access token MUST carry, with the JSON type each one has (RFC 7519 §4.1). */
export const ACCESS_TOKEN_JWT_CLAIMS = {
  iss: 'string',
  exp: 'NumericDate',
  aud: 'StringOrURI or array',
  sub: 'string',
  client_id: 'string',
  iat: 'NumericDate',
  jti: 'string',
} as const;

export type AccessTokenJwtClaim = keyof typeof ACCESS_TOKEN_JWT_CLAIMS;

/** Whether `value` has the JSON type RFC 9068 §2.2 (by RFC 7519 §4.1) gives the claim. */
export function accessTokenClaimWellTyped(name: AccessTokenJwtClaim, value: unknown): boolean {
  switch (ACCESS_TOKEN_JWT_CLAIMS[name]) {
    case 'NumericDate':
      return typeof value === 'number' && Number.isFinite(value);
    case 'StringOrURI or array':
      return (
        (typeof value === 'string' && value !== '') ||
        (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string' && v !== ''))
      );
    default:
      return typeof value === 'string' && value !== '';
  }
}

/** RFC 9101 §10.8 (and RFC 8725 §3.11): the explicit type of a request object. */
export const REQUEST_OBJECT_TYP = 'oauth-authz-req+jwt';

/**
 * The header and payload of a JWS in compact serialization (RFC 7515 §7.1: three base64url parts, the first a JSON
 * object with `alg`), or undefined for anything else: an opaque token, a JWE (five parts), a broken encoding.
 */
export function compactJwsParts(
  token: string,
): { header: Record<string, unknown>; payload: Record<string, unknown> } | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((p) => /^[A-Za-z0-9_-]*$/.test(p)) || !parts[0] || !parts[1]) return undefined;
  const json = (part: string): Record<string, unknown> | undefined => {
    try {
      const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
      return isRecord(value) ? value : undefined;
    } catch {
      return undefined;
    }
  };
  const header = json(parts[0]);
  const payload = json(parts[1]);
  if (!header || typeof header.alg !== 'string' || !payload) return undefined;
  return { header, payload };
}
