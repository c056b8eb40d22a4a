/** Scope parsing, server-side scope validation (SPEC errors 4) and the claims each scope releases (OIDC Core §5.4). */
import type { Flaws } from './flaws.ts';
import type { UserConfig } from './options.ts';
import { invalidRequest, invalidScope } from './oauth-error.ts';
import { hasScopeToken, scopeTokens } from '../protocol/scope.ts';
import { SCOPE_TOKEN_FORMAT } from '../protocol/syntax.ts';

/** OIDC Core §5.4: the claims each scope value requests. */
export const SCOPE_CLAIMS = {
  profile: ['name', 'family_name', 'picture'],
  email: ['email', 'email_verified'],
  address: ['address'],
  phone: ['phone_number'],
} as const satisfies Record<string, readonly (keyof UserConfig['claims'])[]>;

/** RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ), space-delimited. */
const SCOPE_TOKEN = SCOPE_TOKEN_FORMAT;

/** Splits a scope string into its distinct tokens, in order. */
export function parseScope(scope: string): string[] {
  const tokens = scopeTokens(scope);
  for (const token of tokens) {
    if (!SCOPE_TOKEN.test(token)) throw invalidRequest('scope contains characters outside RFC 6749 section 3.3');
  }
  return [...new Set(tokens)];
}

export const hasScope = (scope: string, token: string) => hasScopeToken(scope, token);

/**
 * The scope to grant for a request: every requested token must be in the client's registered
 * scope or the request is invalid_scope.
 */
export function grantScope(requested: string, allowed: string, flaws: Flaws): string {
  if (flaws.has('scope-unchecked')) return nonEmpty(parseScope(requested)).join(' ');
  return narrowScope(requested, allowed);
}

/** RFC 6749 §6: a requested scope may only be a subset of `granted`. */
export function narrowScope(requested: string, granted: string): string {
  const tokens = nonEmpty(parseScope(requested));
  const grantedTokens = new Set(parseScope(granted));
  const beyond = tokens.filter((t) => !grantedTokens.has(t));
  if (beyond.length > 0) throw invalidScope(`scope not allowed here: ${beyond.join(' ')}`);
  return tokens.join(' ');
}

function nonEmpty(tokens: string[]): string[] {
  if (tokens.length === 0) throw invalidScope('no scope was requested');
  return tokens;
}

/**
 * The claims each scope releases: OIDC Core §5.4, plus the options' `scopeClaims` (added to a standard scope's own).
 */
export function scopeClaimMap(extra: Readonly<Record<string, readonly string[]>> = {}): Record<string, string[]> {
  const map: Record<string, string[]> = Object.fromEntries(
    Object.entries(SCOPE_CLAIMS).map(([scope, names]) => [scope, [...names]]),
  );
  for (const [scope, names] of Object.entries(extra)) map[scope] = [...new Set([...(map[scope] ?? []), ...names])];
  return map;
}

/** The user's claims released by the granted scope (ID token and userinfo); claims the user lacks are left out. */
export function claimsForScope(
  user: UserConfig,
  scope: string,
  flaws: Flaws,
  extra?: Readonly<Record<string, readonly string[]>>,
): Partial<UserConfig['claims']> {
  const granted = new Set(scope.split(' '));
  const claims: Partial<UserConfig['claims']> = {};
  for (const [scopeName, names] of Object.entries(scopeClaimMap(extra))) {
    if (!granted.has(scopeName) && !flaws.has('claims-overshare')) continue;
    for (const name of names) if (user.claims[name] !== undefined) claims[name] = user.claims[name];
  }
  return claims;
}
