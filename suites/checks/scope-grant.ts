/**
 * What a token response granted, and the check that scopes beyond what may be granted were
 * withheld: refused with invalid_scope, or left out of the granted scope (RFC 6749 §3.3 lets a
 * server narrow a request instead of refusing it).
 */
import {
  CheckFailure,
  type HttpResponse,
  type ScenarioContext,
  type Target,
  type TokenSet,
} from '../../harness/scenario/scenario.ts';
import { parseScope } from '../../generators/scope.ts';
import { type Rule, describeResponse } from './oauth.ts';

/** The OIDC scopes that ask for the user's claims or a refresh token: meaningless without a user. */
export const USER_SCOPES: readonly string[] = ['openid', 'profile', 'email', 'address', 'phone', 'offline_access'];

/**
 * Scopes the target advertises (scopes_supported) that `configured` lacks, minus `exclude`: the
 * scopes to escalate with. A scope the server does not know may be silently ignored, so only
 * advertised ones are asked for.
 */
export function escalatingScopes(
  target: Target,
  configured: readonly string[],
  exclude: readonly string[] = [],
): string[] {
  const supported = target.discovery?.scopes_supported;
  if (!Array.isArray(supported)) return [];
  return supported.filter((s): s is string => typeof s === 'string' && !configured.includes(s) && !exclude.includes(s));
}

export interface GrantedScope {
  /** Where it was read, with the value: `the token response's scope "openid profile"`. */
  source: string;
  scopes: string[];
}

/**
 * Every statement of the granted scope: the response's `scope`, and the access token's `scope`
 * (or `scp`) claim when it is a JWT. With neither, RFC 6749 §5.1 says the scope is the one requested.
 */
export function grantedScopes(
  tokens: TokenSet,
  requested: readonly string[],
  jwt: Pick<ScenarioContext['jwt'], 'decode'>,
): GrantedScope[] {
  const found: GrantedScope[] = [];
  if (typeof tokens.scope === 'string')
    found.push({ source: `the token response's scope "${tokens.scope}"`, scopes: parseScope(tokens.scope) });
  const claims = tokens.access_token.split('.').length === 3 ? tryDecode(tokens.access_token, jwt) : undefined;
  const claim = claims?.scope ?? claims?.scp;
  if (typeof claim === 'string')
    found.push({ source: `the access token's scope claim "${claim}"`, scopes: parseScope(claim) });
  else if (Array.isArray(claim)) {
    const scopes = claim.filter((s): s is string => typeof s === 'string');
    found.push({ source: `the access token's scp claim ${JSON.stringify(scopes)}`, scopes });
  }
  if (found.length === 0)
    found.push({
      source: 'the response names no scope, which RFC 6749 §5.1 reads as the scope requested',
      scopes: [...requested],
    });
  return found;
}

function tryDecode(token: string, jwt: Pick<ScenarioContext['jwt'], 'decode'>): Record<string, unknown> | undefined {
  try {
    return jwt.decode(token).payload;
  } catch (error) {
    if (error instanceof CheckFailure) return undefined; // opaque after all
    throw error;
  }
}

/**
 * A token request that asked for `extra` beyond what may be granted: refused with invalid_scope, or
 * answered with tokens whose granted scope leaves every one of `extra` out. Returns how it was refused.
 */
export function expectScopesWithheld(
  res: HttpResponse,
  extra: readonly string[],
  requested: readonly string[],
  jwt: Pick<ScenarioContext['jwt'], 'decode'>,
  rule: Rule,
): 'error' | 'narrowed' {
  const b = res.body;
  if (res.status !== 200 || typeof b.access_token !== 'string') {
    if (res.status >= 400 && res.status < 500 && b.error === 'invalid_scope') return 'error';
    throw new CheckFailure(
      `${rule.when} got ${describeResponse(res)}; ${rule.per.label} requires error=invalid_scope, or tokens whose ` +
        `granted scope leaves out ${extra.join(' ')}.`,
      { requirement: rule.per, kind: 'refused-wrongly' },
    );
  }
  for (const granted of grantedScopes(b as TokenSet, requested, jwt)) {
    const leaked = extra.filter((s) => granted.scopes.includes(s));
    if (leaked.length) {
      throw new CheckFailure(
        `${rule.when} was granted ${leaked.join(' ')} (${granted.source}); ${rule.per.label} requires ` +
          `error=invalid_scope, or a granted scope without ${leaked.length > 1 ? 'them' : 'it'}.`,
        { requirement: rule.per, kind: 'accepted' },
      );
    }
  }
  return 'narrowed';
}
