/**
 * The claims request parameter (OIDC Core §5.5): a JSON object whose `id_token` and `userinfo`
 * members name the claims the client asks to be returned there. Only the names are kept; a claim
 * this server has for the user is returned when asked for, whatever the scope.
 */
import { invalidRequest } from './oauth-error.ts';
import type { UserConfig } from './options.ts';
import type { RequestedClaims } from './store/store.ts';

const CLAIMS_LIMIT = 4096;

export function parseClaimsRequest(value: string): RequestedClaims {
  if (value.length > CLAIMS_LIMIT) throw invalidRequest(`the claims parameter exceeds ${CLAIMS_LIMIT} characters`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw invalidRequest('the claims parameter is not JSON');
  }
  if (!isObject(parsed)) throw invalidRequest('the claims parameter must be a JSON object');
  const names = (member: string): string[] | undefined => {
    const requested = parsed[member];
    if (requested === undefined || requested === null) return undefined;
    if (!isObject(requested)) throw invalidRequest(`claims.${member} must be a JSON object`);
    return Object.keys(requested);
  };
  const idToken = names('id_token');
  const userinfo = names('userinfo');
  return { ...(idToken ? { idToken } : {}), ...(userinfo ? { userinfo } : {}) };
}

/**
 * OIDC Core §5.5.1.1: the acr values an essential acr claim of the ID token asks for (its `values`, or its `value`),
 * or undefined when acr is not asked for as essential with values (or the parameter is no JSON).
 */
export function essentialAcrValues(value: string): string[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return undefined; // parseClaimsRequest answers a claims parameter that is not JSON
  }
  const idToken = isObject(parsed) ? parsed.id_token : undefined;
  const acr = isObject(idToken) ? idToken.acr : undefined;
  if (!isObject(acr) || acr.essential !== true) return undefined;
  const values = Array.isArray(acr.values) ? acr.values : acr.value === undefined ? undefined : [acr.value];
  return values?.filter((v): v is string => typeof v === 'string');
}

/** The user's values of the named claims that this server holds. */
export function requestedClaimValues(user: UserConfig, names: readonly string[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of names ?? []) if (Object.hasOwn(user.claims, name)) out[name] = user.claims[name];
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
