/**
 * Shared by the authorization endpoint and the login/consent interaction: the interaction
 * cookie, issuing the code, and redirecting back to the client (RFC 6749 §4.1.2, §4.2.2, RFC 9207).
 */
import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import type { ServerContext } from '../context.ts';
import type { OAuthError } from '../oauth-error.ts';
import { pageHeaders } from '../http/headers.ts';
import { normalizeResponseType, responseTypeParts } from '../../protocol/response-type.ts';
import type { InteractionRecord, ResponseMode, ResponseType } from '../store/store.ts';
import { grantRevocationUntil } from '../grants/issue.ts';
import { randomToken } from '../tokens.ts';
import { FORM_POST_SCRIPT_SOURCES, type FormPostSubmit, formPostPage } from '../views/form-post.ts';
import { langOf } from '../views/locale.ts';
import { JARM_DEFAULT_MODE, JARM_RESPONSE_PARAMETER, jarmModeOf } from '../../protocol/jarm.ts';
import { signCompact } from '../jws.ts';
import { REQUIRED_ID_TOKEN_ALG, type SigningAlg } from '../keys.ts';

/** Where an authorization response goes: a redirect_uri already matched, and the state to echo. */
export interface RedirectTarget {
  redirectUri: string;
  state?: string;
  /**
   * Query (the default) for codes; fragment for tokens, so that they never reach a server; form_post when the request
   * asked for it (OAuth 2.0 Form Post Response Mode).
   */
  responseMode?: ResponseMode;
  /** The client the response is for: the audience of a JARM response JWT (JARM §2.1). */
  clientId?: string;
}

export type { ResponseMode } from '../store/store.ts';

const RESPONSE_TYPES: readonly ResponseType[] = [
  'code',
  'token',
  'id_token',
  'id_token token',
  'code id_token',
  'code token',
  'code id_token token',
];

/** The parts of a response type: what the authorization endpoint returns (OAuth 2.0 Multiple Response Types §3). */
export function responseParts(responseType: ResponseType | undefined): {
  code: boolean;
  token: boolean;
  idToken: boolean;
} {
  return responseTypeParts(responseType ?? 'code');
}

/** A response_type value, whose space-separated parts may come in any order (OAuth 2.0 Multiple Response Types §5). */
export function parseResponseType(value: string | undefined): ResponseType | undefined {
  if (value === undefined) return undefined;
  const normalized = normalizeResponseType(value);
  return RESPONSE_TYPES.find((type) => type === normalized);
}

/**
 * The default response mode of a response type (OAuth 2.0 Multiple Response Types §5, OIDC Core §3.2.2.5 and
 * §3.3.2.5): query for code alone, fragment for anything that carries a token.
 */
export const responseModeOf = (responseType: ResponseType | undefined): ResponseMode =>
  responseType === undefined || responseType === 'code' ? 'query' : 'fragment';

/**
 * The response mode a request gets, errors included: form_post when it asked for it (OAuth 2.0 Form Post Response
 * Mode §2), a JARM mode when it asked for one (JARM §2.3: jwt is query.jwt for code, fragment.jwt for a response type
 * with a token; query.jwt never carries tokens, §2.3.1), else the response type's default, the only other mode it may
 * ask for (OAuth 2.0 Multiple Response Types §2.1 forbids the query for tokens; this server keeps codes in the query).
 */
export function responseModeFor(responseType: ResponseType | undefined, asked: string | undefined): ResponseMode {
  if (asked === 'form_post') return 'form_post';
  const carriesToken = responseType !== undefined && responseType !== 'code';
  const jarm = jarmModeOf(asked, carriesToken);
  if (jarm !== undefined && !(jarm === 'query.jwt' && carriesToken)) return jarm;
  return responseModeOf(responseType);
}

/** Whether the response_mode a request asked for is the one it gets (`jwt` names the JARM mode it resolves to). */
export const modeAnswers = (asked: string, mode: ResponseMode): boolean =>
  asked === mode || (asked === JARM_DEFAULT_MODE && mode.endsWith('.jwt'));

/** The redirect target of a stored authorization request. */
export function targetOf(interaction: InteractionRecord): RedirectTarget {
  return {
    redirectUri: interaction.redirectUri,
    responseMode: interaction.responseMode ?? responseModeOf(interaction.responseType),
    clientId: interaction.clientId,
    ...(interaction.state === undefined ? {} : { state: interaction.state }),
  };
}

/** An error that may be sent to the client's redirect_uri (RFC 6749 §4.1.2.1). */
export class RedirectError extends Error {
  constructor(
    readonly target: RedirectTarget,
    readonly oauth: OAuthError,
  ) {
    super(oauth.message);
  }
}

/**
 * The response parameters, state and iss sent to the redirect_uri: a 303 with them in its query or its fragment, or
 * (form_post) a page whose form posts them there by itself. A JARM mode sends them as one signed JWT instead, the
 * `response` parameter, delivered the same three ways (JARM §2.3).
 */
export async function redirectToClient(
  ctx: Context,
  server: ServerContext,
  target: RedirectTarget,
  params: Record<string, string>,
): Promise<void> {
  let response = new URLSearchParams(params);
  if (target.state !== undefined && !server.flaws.has('state-dropped')) response.set('state', target.state);
  const mode = target.responseMode ?? 'query';
  const jarm = mode.endsWith('.jwt');
  // RFC 9207 §2.4: with JARM the issuer is the JWT's iss claim, not a parameter beside it.
  if (jarm) response = new URLSearchParams({ [JARM_RESPONSE_PARAMETER]: await responseJwt(server, target, response) });
  else if (!server.flaws.has('iss-missing')) response.set('iss', server.issuer);
  const url = new URL(target.redirectUri);
  // Flaw form-post-ignored-for-implicit: form_post holds for code alone; a token or ID token goes in the fragment.
  const ignored =
    server.flaws.has('form-post-ignored-for-implicit') && ('access_token' in params || 'id_token' in params);
  const delivery = mode === 'form_post' && ignored ? 'fragment' : mode;
  if (delivery === 'form_post' || delivery === 'form_post.jwt') {
    postToClient(ctx, server, url, response);
    return;
  }
  // OAuth 2.0 Multiple Response Types §3, §5: the query MUST NOT be used for tokens. The flaw implicit-params-in-query
  // puts them (and the errors) there.
  if ((delivery === 'fragment' && !server.flaws.has('implicit-params-in-query')) || delivery === 'fragment.jwt')
    url.hash = response.toString();
  else for (const [name, value] of response) url.searchParams.set(name, value);
  pageHeaders(ctx, server.flaws);
  // RFC 9700 §4.12: a 307 would make the browser re-post the login form (the credentials) to the client.
  ctx.status =
    ctx.method === 'POST' && server.flaws.has('redirect-307-after-login') ? 307 : redirectStatus(ctx, server);
  ctx.set('Location', url.href);
}

/**
 * The status of the authorization endpoint's redirects: 303 See Other; under the found-redirects variant, 302 Found for
 * a GET (RFC 6749 §4.1.2's example; a POST keeps 303, as RFC 9700 §4.12 asks after a form that may carry credentials).
 */
export function redirectStatus(ctx: Context, server: ServerContext): 302 | 303 {
  return ctx.method === 'GET' && server.variants.has('found-redirects') ? 302 : 303;
}

/**
 * OAuth 2.0 Form Post Response Mode §2: an HTML page whose form, method POST, action the redirect_uri, carries the
 * response parameters as hidden fields and is submitted by the page itself (views/form-post.ts; a button without
 * scripts). The flaw
 * form-post-in-query puts them in the action's query instead, where they end up in logs and the Referer.
 */
function postToClient(ctx: Context, server: ServerContext, url: URL, response: URLSearchParams): void {
  const inQuery = server.flaws.has('form-post-in-query');
  if (inQuery) for (const [name, value] of response) url.searchParams.set(name, value);
  pageHeaders(ctx, server.flaws);
  const submit: FormPostSubmit = server.flaws.has('form-post-not-submitting')
    ? 'never'
    : server.variants.has('form-post-script')
      ? 'script'
      : 'onload';
  // The page's one script (or onload handler) is allowed by its hash; nothing else runs.
  ctx.set(
    'Content-Security-Policy',
    `${ctx.response.get('Content-Security-Policy')}; script-src ${FORM_POST_SCRIPT_SOURCES[submit]}`,
  );
  ctx.status = 200;
  ctx.type = 'text/html; charset=utf-8';
  const fields = [...response].filter(
    ([name]) => !(name === 'error_description' && server.variants.has('errors-without-description')),
  );
  ctx.body = formPostPage({ action: url.href, fields: inQuery ? [] : fields, submit, lang: langOf(server) });
}

/** JARM §2.1: the lifetime of a response JWT, in seconds ("short-lived": it is read once, at once). */
const RESPONSE_JWT_LIFETIME = 600;

/**
 * JARM §2.1, §2.2: the authorization response as a JWT signed by the server's current key (its kid in the header), with
 * iss, aud (the client) and exp beside the response parameters. The flaw jarm-unsigned sends it with alg none and no
 * signature.
 */
async function responseJwt(server: ServerContext, target: RedirectTarget, response: URLSearchParams): Promise<string> {
  const exp = Math.floor(server.now() / 1000) + RESPONSE_JWT_LIFETIME;
  const payload = {
    iss: server.issuer,
    ...(target.clientId === undefined ? {} : { aud: target.clientId }),
    exp,
    ...Object.fromEntries(response),
  };
  if (server.flaws.has('jarm-unsigned')) {
    const encode = (json: object) => Buffer.from(JSON.stringify(json)).toString('base64url');
    return `${encode({ alg: 'none', typ: 'JWT' })}.${encode(payload)}.`;
  }
  const client = target.clientId === undefined ? undefined : await server.findClient(target.clientId);
  const key = server.keys.forSigning(exp * 1000, client?.authorizationSignedResponseAlg ?? jarmSigningAlg(server));
  return signCompact({ alg: key.alg, kid: key.kid, typ: 'JWT' }, payload, key.privateKey);
}

/**
 * The alg of the response JWTs: RS256, the default of authorization_signed_response_alg (JARM §3), when the server
 * signs with it (its current key, or an RS256 key beside it); else the current key's (PS256 or ES256 under FAPI 2.0).
 */
export const jarmSigningAlg = (server: ServerContext): SigningAlg => server.keys.signerFor(REQUIRED_ID_TOKEN_ALG).alg;

export async function redirectError(ctx: Context, server: ServerContext, err: RedirectError): Promise<void> {
  await redirectToClient(ctx, server, err.target, { error: err.oauth.error, error_description: err.oauth.description });
}

/** How long a code lives under the flaw code-never-expires: far beyond any lifetime a scenario waits out. */
const DAY_MS = 24 * 3600 * 1000;

/** Issues the authorization code for a completed interaction: single use, short-lived, bound to all of it. */
export async function issueCode(
  server: ServerContext,
  interaction: InteractionRecord & { sub: string; authTime: number; sid?: string },
): Promise<string> {
  // RFC 6749 §10.10: 256 random bits; the flaw keeps 48.
  const code = server.flaws.has('low-entropy-codes') ? randomBytes(6).toString('hex') : randomToken();
  const grantId = randomToken();
  await supersedeEarlierGrant(server, interaction.sub, interaction.clientId, grantId);
  await server.store.saveCode({
    code,
    grantId,
    clientId: interaction.clientId,
    redirectUri: interaction.redirectUri,
    sub: interaction.sub,
    scope: interaction.scope,
    authTime: interaction.authTime,
    ...(interaction.sid === undefined ? {} : { sid: interaction.sid }),
    // RFC 6749 §4.1.2: the code expires shortly after it is issued (lifetimes.authorizationCode, 60 s as FAPI 2.0 SP
    // §5.3.2.1 caps it); the store drops it then. The flaw code-never-expires gives it a day instead.
    expiresAt:
      server.now() + (server.flaws.has('code-never-expires') ? DAY_MS : server.lifetimes.authorizationCode * 1000),
    ...(interaction.nonce === undefined ? {} : { nonce: interaction.nonce }),
    ...(interaction.claims === undefined ? {} : { claims: interaction.claims }),
    ...(interaction.codeChallenge === undefined ? {} : { codeChallenge: interaction.codeChallenge }),
    ...(interaction.codeChallengeMethod === undefined ? {} : { codeChallengeMethod: interaction.codeChallengeMethod }),
    ...(interaction.resources === undefined ? {} : { resources: interaction.resources }),
    ...(interaction.dpopJkt === undefined ? {} : { dpopJkt: interaction.dpopJkt }),
    ...((interaction.responseType ?? 'code') === 'code' ? {} : { hybrid: true }),
  });
  return code;
}

/**
 * The revoke-previous-grant variant: the user's latest grant for the client is this one; the one it replaces is revoked
 * with every token it issued or will issue (Doorkeeper revoke_previous_authorization_code_token, Cloudflare
 * workers-oauth-provider completeAuthorization).
 */
async function supersedeEarlierGrant(server: ServerContext, sub: string, clientId: string, grantId: string) {
  if (!server.variants.has('revoke-previous-grant')) return;
  const until = grantRevocationUntil(server);
  const earlier = await server.store.swapLatest('grant', `${clientId} ${sub}`, grantId, until);
  if (earlier !== undefined && earlier !== grantId) await server.store.revokeGrant(earlier, until);
}

const COOKIE = 'idpc_interaction';

/** The interaction's URL path; its cookie is scoped to it. */
export const interactionPath = (id: string) => `/interaction/${encodeURIComponent(id)}`;

/**
 * Binds the interaction to this browser: the login and consent POSTs must carry the cookie.
 * The cookie is scoped to the path of `url` (the device activation passes its own).
 */
export function setInteractionCookie(
  ctx: Context,
  server: ServerContext,
  id: string,
  maxAge: number,
  url = server.url(interactionPath(id)),
): void {
  const path = new URL(url).pathname;
  const secure = url.startsWith('https:') ? '; Secure' : '';
  ctx.append('Set-Cookie', `${COOKIE}=${id}; Path=${path}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure}`);
}

/** Whether the request carries the cookie of interaction `id` (several may be pending at once). */
export function hasInteractionCookie(ctx: Context, id: string): boolean {
  return ctx
    .get('cookie')
    .split(';')
    .some((part) => part.trim() === `${COOKIE}=${id}`);
}
