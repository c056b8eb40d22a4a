/** The scope parameter (RFC 6749 §3.3): "a list of space-delimited, case-sensitive strings". */

/** The scope tokens of a scope string, in order (empty ones from doubled spaces dropped; duplicates kept). */
export const scopeTokens = (scope: string): string[] => scope.split(' ').filter((t) => t !== '');

/** Whether a scope string holds the token (case-sensitive, a whole token: `openid` is not in `openid2`). */
export const hasScopeToken = (scope: string | undefined, token: string): boolean =>
  scopeTokens(scope ?? '').includes(token);
