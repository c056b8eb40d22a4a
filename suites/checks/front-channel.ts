/**
 * The implicit and hybrid flows of OpenID Connect (OIDC Core §3.2, §3.3): which of their response types a target
 * offers, and an authorization as the `legacy` client whose response (in the fragment by default, §3.2.2.5 and
 * §3.3.2.5) carries the parts its response type names.
 */
import {
  type AuthorizeResult,
  CheckFailure,
  type Client,
  PreconditionError,
  type Requirement,
  type RequirementRef,
  type ScenarioContext,
  type Target,
  describeOutcome,
} from '../../harness/scenario/scenario.ts';
import { normalizeResponseType, responseTypeParts } from '../../protocol/response-type.ts';
import { withOpenid } from './scope.ts';

/** Of `candidates`, those response_types_supported lists (in any order of their parts), in the candidates' order. */
export function offeredResponseTypes(target: Target, candidates: readonly string[]): string[] {
  const listed = target.discovery?.response_types_supported;
  if (!Array.isArray(listed)) return [];
  const offered = new Set(listed.filter((t): t is string => typeof t === 'string').map(normalizeResponseType));
  return candidates.filter((type) => offered.has(normalizeResponseType(type)));
}

/**
 * Skips unless the target offers one of `candidates`, naming the field; the legacy client must have a redirect URI.
 * Returns the offered ones.
 */
export function requireResponseTypes(ctx: ScenarioContext, candidates: readonly string[]): string[] {
  const offered = offeredResponseTypes(ctx.target, candidates);
  if (offered.length === 0) {
    const listed = ctx.target.discovery ? 'does not list' : 'cannot be read for';
    ctx.skip(
      `response_types_supported ${listed} ${candidates.map((t) => `"${t}"`).join(' or ')}, so the target does ` +
        'not offer them',
    );
  }
  if (!ctx.client('legacy').redirectUri)
    ctx.skip('clients.legacy has no redirectUri, which the implicit and hybrid flows need');
  return offered;
}

/** OIDC Core §2, what the OP owes in an ID token that validateFrontChannelIdToken checks. */
export const ID_TOKEN_OIDC_CORE_2: Requirement = {
  spec: 'OIDC Core',
  section: '2',
  level: 'MUST',
  party: 'server',
  note: 'the ID token is signed, its iss and aud are right, and it echoes the nonce of the request',
};

/** OIDC Core §3.3.2.11: c_hash in the ID token of a hybrid response, which checkFrontChannelCHash checks. */
export const C_HASH_OIDC_CORE_3_3_2_11: Requirement = {
  spec: 'OIDC Core',
  section: '3.3.2.11',
  level: 'MUST',
  party: 'server',
  note: 'c_hash is REQUIRED when the ID token comes with a code from the authorization endpoint',
};

/**
 * The client was refused the response type itself (unauthorized_client or unsupported_response_type, RFC 6749
 * §4.1.2.1): the deployment did not register it for that response type, a premise the scenario lacks, not a verdict.
 */
export class ResponseTypeRefused extends PreconditionError {
  constructor(
    readonly responseType: string,
    readonly error: string,
  ) {
    super(`the legacy client was refused response_type=${responseType} with error=${error}`);
  }
}

/** The errors that refuse the response type to this client: a premise missing, not a verdict. */
export const NOT_FOR_THIS_CLIENT_ERRORS: ReadonlySet<string> = new Set([
  'unauthorized_client',
  'unsupported_response_type',
]);

/**
 * Runs `judge` for each response type; one the client is refused (ResponseTypeRefused) is left out with a note. None
 * judged: a skip naming the refusals.
 */
export async function forEachResponseType(
  ctx: ScenarioContext,
  types: readonly string[],
  judge: (responseType: string) => Promise<void>,
): Promise<void> {
  const refused: string[] = [];
  for (const type of types) {
    try {
      await judge(type);
    } catch (caught) {
      if (!(caught instanceof ResponseTypeRefused)) throw caught;
      refused.push(`${type} (error=${caught.error})`);
      ctx.evidence.note(`${caught.message}: the deployment does not offer it to this client, so it is not judged.`);
    }
  }
  if (refused.length === types.length)
    ctx.skip(
      `clients.legacy is refused every response type it would need: ${refused.join(', ')}; register it for one of ` +
        'them to run this scenario',
    );
}

/** Runs `check`; a CheckFailure it throws says which response type it was about ("With response_type=…: …"). */
export async function inResponse<T>(responseType: string, check: () => T | Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (caught) {
    if (!(caught instanceof CheckFailure)) throw caught;
    throw new CheckFailure(`With response_type=${responseType}: ${caught.message}`, {
      ...(caught.requirement ? { requirement: caught.requirement } : {}),
      kind: caught.kind,
      cause: caught,
    });
  }
}

export interface FrontChannelResponse {
  client: Client;
  responseType: string;
  /** The nonce sent (absent when the request had none). */
  nonce?: string;
  /** The PKCE verifier of the code_challenge sent with a response type that issues a code. */
  verifier?: string;
  outcome: AuthorizeResult & { kind: 'redirect' };
  params: Record<string, string>;
}

/** The parameters a response type names (OIDC Core §3.2.2.5, §3.3.2.5): code, access_token, id_token. */
export function expectedParts(responseType: string): string[] {
  const parts = responseTypeParts(responseType);
  return [
    ...(parts.code ? ['code'] : []),
    ...(parts.token ? ['access_token'] : []),
    ...(parts.idToken ? ['id_token'] : []),
  ];
}

/**
 * The parameters of an implicit or hybrid request as `legacy`: scope openid, the nonce given, and for a response type
 * that issues a code, a fresh S256 challenge, as RFC 9700 §2.1.1 has every client send (a server may require it of all:
 * OAuth 2.1 §4.1.1), so that no refusal is put down to what the request did not mean to test.
 */
export function frontChannelParams(
  ctx: ScenarioContext,
  responseType: string,
  nonce: string | undefined,
): Record<string, string | undefined> {
  return frontChannelRequest(ctx, responseType, nonce).params;
}

/** frontChannelParams and the PKCE verifier of its code_challenge (none when the response type issues no code). */
function frontChannelRequest(
  ctx: ScenarioContext,
  responseType: string,
  nonce: string | undefined,
): { params: Record<string, string | undefined>; verifier?: string } {
  const pkce = responseTypeParts(responseType).code ? ctx.pkce.create() : undefined;
  const params = {
    response_type: responseType,
    scope: withOpenid(ctx.client('legacy').scope),
    nonce,
    ...(pkce ? { code_challenge: pkce.challenge, code_challenge_method: pkce.method } : {}),
  };
  return pkce ? { params, verifier: pkce.verifier } : { params };
}

/**
 * An implicit or hybrid authorization as `legacy` with scope openid and a fresh nonce (or none: `nonce: false`), in
 * the run's shared session; `params` adds to or replaces those parameters (another scope, say). A redirect that lacks
 * a part the response type names is a PreconditionError: what the caller judges needs them.
 */
export async function frontChannelResponse(
  ctx: ScenarioContext,
  responseType: string,
  options: { nonce?: boolean; params?: Record<string, string | undefined> } = {},
): Promise<FrontChannelResponse> {
  const client = ctx.client('legacy');
  const nonce = options.nonce === false ? undefined : ctx.random();
  const request = frontChannelRequest(ctx, responseType, nonce);
  const params = { ...request.params, ...options.params };
  const outcome = await ctx.authorize('legacy', params, { session: 'shared' });
  const error = outcome.kind === 'redirect' ? outcome.params.error : undefined;
  if (error !== undefined && NOT_FOR_THIS_CLIENT_ERRORS.has(error)) throw new ResponseTypeRefused(responseType, error);
  const missing = outcome.kind === 'redirect' ? expectedParts(responseType).filter((p) => !outcome.params[p]) : [];
  if (outcome.kind !== 'redirect' || missing.length > 0) {
    throw new PreconditionError(
      `the authorization request as legacy with response_type=${responseType} ${describeOutcome(outcome)}` +
        `${missing.length ? ` without ${missing.join(', ')}` : ''}; the response was needed to go on`,
    );
  }
  return {
    client,
    responseType,
    outcome,
    params: outcome.params,
    ...(nonce === undefined ? {} : { nonce }),
    ...(request.verifier === undefined ? {} : { verifier: request.verifier }),
  };
}

/**
 * The ID token of a front-channel response validated as the client must (OIDC Core §3.2.2.11, §3.3.2.12): its
 * signature by a key of the JWKS, iss, aud (azp), exp and iat, and the nonce echoed. A failure names what is wrong.
 */
export async function validateFrontChannelIdToken(ctx: ScenarioContext, response: FrontChannelResponse) {
  const idToken = response.params.id_token!;
  await ctx.jwt.validateIdToken(idToken, {
    client: response.client,
    ...(response.nonce === undefined ? {} : { nonce: response.nonce }),
  });
  return idToken;
}

/**
 * The front-channel ID token's c_hash checked against the code of the same response (OIDC Core §3.3.2.11, required
 * there), softly: a mismatch is recorded against `per` and the run goes on. Returns whether it matched.
 */
export async function checkFrontChannelCHash(
  ctx: ScenarioContext,
  response: FrontChannelResponse,
  idToken: string,
  per: RequirementRef,
): Promise<boolean> {
  const { responseType } = response;
  const matched = await ctx.softly(
    () => inResponse(responseType, () => ctx.jwt.checkCHash(idToken, response.params.code!, { required: true })),
    { requirement: per },
  );
  if (matched) ctx.evidence.note(`response_type=${responseType}: the ID token's c_hash matches its code.`);
  return matched;
}
