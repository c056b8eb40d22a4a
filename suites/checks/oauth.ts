/**
 * Conditions on OAuth responses. Each names the situation (`when`) and the rule (`per`) in its
 * failure sentence; the scenario that calls it decides which requirement it enforces.
 */
import {
  type AuthorizeResult,
  CheckFailure,
  type FailureKind,
  type HttpResponse,
  type RequirementRef,
  type TokenSet,
  describeOutcome,
} from '../../harness/scenario/scenario.ts';

export interface Rule {
  /** The request, as a sentence subject: "A token request with a wrong code_verifier". */
  when: string;
  /** The requirement, as the scenario declared it (ctx.req.<name>). Its level decides failed vs warning. */
  per: RequirementRef;
  /** Overrides how a failure of this check counts (security or interop); each check has its own default. */
  kind?: FailureKind;
}

/** A response that gave the client what it asked for: the bad request was accepted (a security failure). */
export function wasAccepted(res: HttpResponse): boolean {
  return (res.status >= 200 && res.status < 300) || res.body.access_token !== undefined;
}

/** How a response reads in a failure sentence: "HTTP 200 with an access_token". */
export function describeResponse(res: HttpResponse): string {
  const b = res.body;
  if (typeof b.access_token === 'string') return `HTTP ${res.status} with an access_token`;
  if (typeof b.error === 'string') return `HTTP ${res.status} with error=${b.error}`;
  if (res.json === undefined) return `HTTP ${res.status} with a non-JSON body`;
  if (res.json === null || typeof res.json !== 'object' || Array.isArray(res.json)) {
    return (
      `HTTP ${res.status} with a ` +
      `JSON ${res.json === null ? 'null' : Array.isArray(res.json) ? 'array' : typeof res.json}, not a JSON object`
    );
  }
  return `HTTP ${res.status} without an error code`;
}

/** An OAuth error response (RFC 6749 §5.2) with one of `codes`, and no tokens. */
export function expectOAuthError(res: HttpResponse, codes: string | string[], rule: Rule): string {
  const allowed = Array.isArray(codes) ? codes : [codes];
  const error = res.body.error;
  const ok =
    res.status >= 400 &&
    res.status < 500 &&
    typeof error === 'string' &&
    allowed.includes(error) &&
    res.body.access_token === undefined;
  if (!ok) {
    throw new CheckFailure(
      `${rule.when} got ${describeResponse(res)}; ${rule.per.label} requires an error response ` +
        `with ${allowed.map((c) => `error=${c}`).join(' or ')}.`,
      {
        requirement: rule.per,
        kind: rule.kind ?? (wasAccepted(res) ? 'accepted' : 'refused-wrongly'),
      },
    );
  }
  return String(error);
}

/**
 * Tokens were issued: HTTP 200 with an access_token. The rest of RFC 6749 §5.1's form (token_type, Cache-Control,
 * JSON) is token.response-format's rule, not the calling scenario's: the runner notes a deviation in its evidence.
 */
export function expectTokenResponse(res: HttpResponse, rule: Rule): TokenSet {
  const b = res.body;
  if (res.status !== 200 || typeof b.access_token !== 'string' || !b.access_token) {
    throw new CheckFailure(
      `${rule.when} got ${describeResponse(res)}; ${rule.per.label} requires HTTP 200 with an access_token.`,
      { requirement: rule.per, kind: rule.kind ?? 'refused-wrongly' },
    );
  }
  return b as TokenSet;
}

/**
 * token_type, when there is one, is Bearer, compared case-insensitively (RFC 6749 §5.1, §7.1); a missing one is
 * token.response-format's to judge.
 */
export function expectBearer(tokens: TokenSet, rule: Rule): void {
  if (typeof tokens.token_type !== 'string') return;
  if (tokens.token_type.toLowerCase() !== 'bearer') {
    throw new CheckFailure(
      `${rule.when} returned token_type "${tokens.token_type}"; ${rule.per.label} requires "Bearer" (RFC 6750).`,
      { requirement: rule.per, kind: rule.kind ?? 'refused-wrongly' },
    );
  }
}

/** The authorization response redirected to the redirect_uri with a code (RFC 6749 §4.1.2). */
export function expectAuthorizationCode(outcome: AuthorizeResult, rule: Rule): string {
  if (outcome.kind === 'redirect' && outcome.params.code) return outcome.params.code;
  throw new CheckFailure(
    `${rule.when} ${describeOutcome(outcome)}; ${rule.per.label} requires a redirect to the redirect_uri ` +
      `carrying a code.`,
    { requirement: rule.per, kind: rule.kind ?? 'refused-wrongly' },
  );
}

/** The token response carries an id_token (OIDC Core §3.1.3.3: scope openid was granted). */
export function expectIdToken(tokens: TokenSet, rule: Rule): string {
  if (typeof tokens.id_token !== 'string' || !tokens.id_token) {
    throw new CheckFailure(`${rule.when} returned no id_token for scope openid; ${rule.per.label} requires one.`, {
      requirement: rule.per,
      kind: rule.kind ?? 'refused-wrongly',
    });
  }
  return tokens.id_token;
}

/** The response status is one of `statuses` (a sound request answered otherwise: interop, unless the rule says). */
export function expectStatus(res: HttpResponse, statuses: number | number[], rule: Rule): void {
  const allowed = Array.isArray(statuses) ? statuses : [statuses];
  if (!allowed.includes(res.status)) {
    throw new CheckFailure(
      `${rule.when} got ${describeResponse(res)}; ${rule.per.label} requires HTTP ${allowed.join(' or ')}.`,
      { requirement: rule.per, kind: rule.kind ?? 'refused-wrongly' },
    );
  }
}

/** A JSON response field is absent, e.g. no refresh_token from client_credentials (issuing it: accepted). */
export function expectNoField(body: Record<string, unknown>, field: string, rule: Rule): void {
  if (body[field] !== undefined) {
    throw new CheckFailure(`${rule.when} returned a ${field}; ${rule.per.label} requires that it does not.`, {
      requirement: rule.per,
      kind: rule.kind ?? 'accepted',
    });
  }
}

/**
 * A response header matches, e.g. Cache-Control containing no-store (RFC 6749 §5.1): a missing protection counts as
 * security.
 */
export function expectHeader(res: HttpResponse, name: string, pattern: RegExp, rule: Rule & { want: string }): string {
  const value = res.header(name);
  if (value === undefined || !pattern.test(value)) {
    throw new CheckFailure(
      `${rule.when} answered ${value === undefined ? `without ${name}` : `with ${name}: ${value}`}; ` +
        `${rule.per.label} requires ${rule.want}.`,
      { requirement: rule.per, kind: rule.kind ?? 'accepted' },
    );
  }
  return value;
}
