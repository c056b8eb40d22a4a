/**
 * The claims a `shapeClaims` hook may never touch, and the guard that runs the hook (ReferenceOptions.shapeClaims).
 */
import { isDeepStrictEqual } from 'node:util';
import type { ShapeClaims, ShapeContext, TokenKind } from './options.ts';

/**
 * Claims that the server's and its clients' checks rest on: who issued the token, for whom,
 * about whom, when, for what scope, bound to which key or request. A hook may neither change,
 * add nor remove them; user claims and scope-released claims may not use these names either.
 */
export const PROTECTED_CLAIMS = [
  'iss',
  'sub',
  'aud',
  'exp',
  'iat',
  'nbf',
  'jti',
  'nonce',
  'auth_time',
  'at_hash',
  'c_hash',
  'cnf',
  'client_id',
  'scope',
  'act',
  'azp',
  'sid',
] as const;

/** Runs the hook (when there is one) and refuses a result that touches a protected claim. */
export function shapeClaims<T extends Record<string, unknown>>(
  hook: ShapeClaims | undefined,
  kind: TokenKind,
  claims: T,
  context: ShapeContext,
): T {
  if (hook === undefined) return claims;
  const shaped = hook(kind, structuredClone(claims), context);
  if (typeof shaped !== 'object' || shaped === null || Array.isArray(shaped)) {
    throw new TypeError(`shapeClaims must return an object of claims for the ${kind}`);
  }
  for (const name of PROTECTED_CLAIMS) {
    if (!isDeepStrictEqual(shaped[name], claims[name]) || name in shaped !== name in claims) {
      throw new Error(
        `shapeClaims may not change the protected claim "${name}" of the ${kind} (reference/claim-shapes.ts ` +
          `PROTECTED_CLAIMS)`,
      );
    }
  }
  return shaped as T;
}
