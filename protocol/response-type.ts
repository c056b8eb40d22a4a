/**
 * response_type values (OAuth 2.0 Multiple Response Types): their space-separated parts may come in any order (§5),
 * and each part names what the authorization endpoint returns (§3; OIDC Core §3.2.2.5, §3.3.2.5).
 */

/** The parts sorted and single-spaced: one spelling for a response type whatever the order of its parts. */
export function normalizeResponseType(value: string): string {
  return value
    .split(' ')
    .filter((part) => part !== '')
    .sort()
    .join(' ');
}

/** What a response type returns: a code, an access token, an ID token. */
export function responseTypeParts(value: string): { code: boolean; token: boolean; idToken: boolean } {
  const parts = value.split(' ');
  return { code: parts.includes('code'), token: parts.includes('token'), idToken: parts.includes('id_token') };
}

/** The response types of the hybrid flow (OIDC Core §3.3.2.1). */
export const HYBRID_RESPONSE_TYPES: readonly string[] = ['code id_token', 'code token', 'code id_token token'];
