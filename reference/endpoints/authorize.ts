/**
 * GET /auth (RFC 6749 §4.1.1, OIDC Core §3.1.2; the opt-in implicit grant: RFC 6749 §4.2.1,
 * OIDC Core §3.2.2). Validates the request, then starts an interaction and shows the login page.
 * Errors follow RFC 6749 §4.1.2.1: an unknown client or an unregistered redirect_uri gets an
 * error page and is never redirected to; every other error goes back to the (registered)
 * redirect_uri with error, error_description and state: in the query, or in the fragment when
 * the request asked for tokens (§4.2.2.1).
 */
import type { Context } from 'koa';
import type { ServerContext } from '../context.ts';
import { essentialAcrValues, parseClaimsRequest } from '../claims-request.ts';
import { paramsAndResources, parseFormPairs, type Params } from '../http/body.ts';
import { authorizationResources } from '../http/resource.ts';
import { invalidRequest, invalidScope, OAuthError, toOAuthError, unauthorizedClient } from '../oauth-error.ts';
import { authorizationEndpointCors } from '../http/cors.ts';
import { pageErrors, renderPage } from '../http/pages.ts';
import { clientEnables, type RegisteredClient, someClientEnables } from '../options.ts';
import { grantScope, hasScope, parseScope } from '../scopes.ts';
import { StoreUnavailableError } from '../store/outage.ts';
import type { InteractionRecord, ResponseType } from '../store/store.ts';
import { randomToken, REFERENCE_ACR } from '../tokens.ts';
import { UNMET_AUTHENTICATION_REQUIREMENTS } from '../../protocol/errors.ts';
import { JARM_RESPONSE_MODES, JARM_SIGNING_ALGS_METADATA } from '../../protocol/jarm.ts';
import { plainErrorPage } from '../views/error.ts';
import {
  interactionPath,
  parseResponseType,
  RedirectError,
  redirectError,
  redirectStatus,
  jarmSigningAlg,
  modeAnswers,
  responseModeFor,
  responseParts,
  setInteractionCookie,
  type RedirectTarget,
} from './authorization-response.ts';
import { readSessionParams, sessionDecision, type SessionParams } from './authorize-session.ts';
import type { Endpoint } from './endpoint.ts';
import { checkPkce } from './authorize-pkce.ts';
import { answerClient, needsConsent, showLogin } from './interaction.ts';
import { currentSession } from './login-session.ts';
import { authorizationParameters } from './pushed-request.ts';
import { withRequestObject } from './request-object.ts';

export const authorizeEndpoint: Endpoint = {
  mount(router, server) {
    const handle = async (ctx: Context, query: URLSearchParams) => {
      try {
        await startInteraction(ctx, server, query);
      } catch (err) {
        if (err instanceof RedirectError) return await redirectError(ctx, server, err);
        if (err instanceof ShownAsPage) {
          const { error, description } = err.oauth;
          return renderPage(ctx, server.flaws, plainErrorPage({ error, description }));
        }
        throw err;
      }
    };
    const cors = authorizationEndpointCors(server.flaws);
    router.get('/auth', cors, pageErrors(server), (ctx) => handle(ctx, new URLSearchParams(ctx.querystring)));
    // OIDC Core §3.1.2.1: the authorization endpoint MUST support GET and POST (a form body).
    if (!server.flaws.has('authorize-get-only')) {
      router.post('/auth', cors, pageErrors(server), async (ctx) => {
        const pairs = await parseFormPairs(ctx);
        // A repeated parameter other than resource is refused at once (paramsAndResources).
        authorizationParams(server, pairs);
        return handle(ctx, pairs);
      });
    }
  },
  metadata: (server) => {
    // The deprecated implicit grant is advertised only when some client enables it.
    const implicit = implicitOffered(server);
    return {
      authorization_endpoint: server.url('/auth'),
      response_types_supported: offeredResponseTypes(server),
      // OAuth 2.0 Form Post Response Mode §2: form_post for every response type; JARM §2.3, §4: the JWT modes.
      response_modes_supported: [
        ...(implicit ? ['query', 'fragment', 'form_post'] : ['query', 'form_post']),
        ...JARM_RESPONSE_MODES,
      ],
      // JARM §4: the algs of the response JWTs, the default first (a client may register another, JARM §3).
      [JARM_SIGNING_ALGS_METADATA]: [...new Set([jarmSigningAlg(server), ...server.keys.signingAlgs])],
      code_challenge_methods_supported: server.flaws.has('pkce-plain-allowed') ? ['S256', 'plain'] : ['S256'],
      authorization_response_iss_parameter_supported: true,
    };
  },
};

async function startInteraction(ctx: Context, server: ServerContext, sent: URLSearchParams): Promise<void> {
  // RFC 9126 §4: a pushed request's parameters (by its request_uri), or the request's own.
  const { query, unregisteredRedirect } = await authorizationParameters(server, sent);
  const { client, target } = await resolveClientAndRedirect(server, query, unregisteredRedirect);
  try {
    await continueInteraction(ctx, server, client, target, query);
  } catch (err) {
    // RFC 6749 §4.1.2.1: temporarily_unavailable exists because a 503 "cannot be returned to the client via an HTTP
    // redirect": from here on the redirect URI is the client's, so a store outage goes back to it. Before (a pushed
    // request or a registered client to read from the store) nothing may be redirected to: a 503 error page.
    if (err instanceof StoreUnavailableError) throw new RedirectError(target, toOAuthError(err));
    throw err;
  }
}

/** startInteraction once the client and its redirect URI are known. */
async function continueInteraction(
  ctx: Context,
  server: ServerContext,
  client: RegisteredClient,
  target: RedirectTarget,
  query: URLSearchParams,
): Promise<void> {
  const { request, session: sessionParams } = await validateRequest(server, client, target, query);
  const session = await currentSession(ctx, server);
  let decision;
  try {
    decision = sessionDecision(server, client, request.scope, sessionParams, session, needsConsent(server, client));
  } catch (err) {
    if (err instanceof OAuthError) throw new RedirectError(target, err);
    throw err;
  }
  const id = randomToken();
  const expiresAt = server.now() + server.lifetimes.interaction * 1000;
  if (decision.kind === 'answer') {
    // Signed in by the session, nothing to ask: the answer goes straight back (OIDC Core §3.1.2.5).
    const { sub, authTime, id: sessionId } = decision.session;
    return answerClient(ctx, server, client, { ...request, id, expiresAt, sub, authTime, sessionId });
  }
  if (decision.kind === 'consent') {
    const { sub, authTime, id: sessionId } = decision.session;
    await server.store.saveInteraction({ ...request, id, expiresAt, sub, authTime, sessionId });
    setInteractionCookie(ctx, server, id, server.lifetimes.interaction);
    ctx.status = redirectStatus(ctx, server);
    ctx.set('Location', server.url(interactionPath(id)));
    return;
  }
  await server.store.saveInteraction({ ...request, id, expiresAt });
  setInteractionCookie(ctx, server, id, server.lifetimes.interaction);
  showLogin(ctx, server, server.url(`${interactionPath(id)}/login`), client);
}

/**
 * The request's parameters, each once (RFC 6749 §3.1: "Request and response parameters MUST NOT be included more
 * than once"; a repeated one is invalid_request, §4.1.2.1), and its resource values (RFC 8707 §2.1 lets those repeat).
 * The flaw authorize-duplicate-params-accepted keeps a repeated parameter's first value instead.
 */
function authorizationParams(server: ServerContext, pairs: URLSearchParams): ReturnType<typeof paramsAndResources> {
  return paramsAndResources(pairs, server.flaws.has('authorize-duplicate-params-accepted') ? 'first-wins' : 'refused');
}

/** The only single value of a parameter, or undefined when it is absent or repeated. */
function single(query: URLSearchParams, name: string): string | undefined {
  const values = query.getAll(name);
  return values.length === 1 && values[0] !== '' ? values[0] : undefined;
}

/** Steps that decide whether a redirect is safe at all; failures here are shown as a page. */
async function resolveClientAndRedirect(
  server: ServerContext,
  query: URLSearchParams,
  /** A pushed request's redirect URI the PAR endpoint took unregistered (variant par-redirect-relaxed). */
  unregisteredRedirect = false,
): Promise<{ client: RegisteredClient; target: RedirectTarget }> {
  const clientId = single(query, 'client_id');
  if (clientId === undefined) throw invalidRequest('client_id is missing or repeated');
  const client = await server.findClient(clientId);
  // Flaw registration-client-unusable: only the configured clients are known here, not registered ones.
  const known = client && (!server.flaws.has('registration-client-unusable') || server.clients.includes(client));
  if (!known) throw invalidRequest('unknown client_id');
  const redirectUri = single(query, 'redirect_uri');
  if (redirectUri === undefined) throw invalidRequest('redirect_uri is missing or repeated');
  const state = single(query, 'state');
  // Tokens answer in the fragment, but only where the implicit grant is offered at all; form_post when asked for.
  const offered = implicitOffered(server);
  const responseType = offered ? parseResponseType(single(query, 'response_type')) : 'code';
  const responseMode = responseModeFor(responseType, single(query, 'response_mode'));
  const target: RedirectTarget = {
    redirectUri,
    responseMode,
    clientId,
    ...(state === undefined ? {} : { state }),
  };
  if (!unregisteredRedirect && !redirectUriRegistered(server, client, redirectUri)) {
    const err = invalidRequest('redirect_uri is not registered for this client');
    if (server.flaws.has('redirect-open-on-error') && URL.canParse(redirectUri)) throw new RedirectError(target, err);
    throw err;
  }
  return { client, target };
}

/** SPEC authentication 5: exact string match against the registered list; no prefix, no wildcard. */
export function redirectUriRegistered(server: ServerContext, client: RegisteredClient, redirectUri: string): boolean {
  // Flaw cimd-redirect-unchecked: a client metadata document's redirect_uris are never compared.
  const document = client.metadataDocument;
  if (document && (document.anyRedirectUri || server.flaws.has('cimd-redirect-unchecked'))) return true;
  const prefix = server.flaws.has('redirect-prefix-match');
  return client.redirectUris.some((registered) =>
    prefix ? redirectUri.startsWith(registered) : redirectUri === registered,
  );
}

export type AuthorizationRequest = Omit<InteractionRecord, 'id' | 'expiresAt' | 'sub' | 'authTime' | 'sessionId'>;

/** Everything else; from here on the redirect_uri is trusted, so errors are redirected to it. */
async function validateRequest(
  server: ServerContext,
  client: RegisteredClient,
  target: RedirectTarget,
  query: URLSearchParams,
): Promise<{ request: AuthorizationRequest; session: SessionParams }> {
  try {
    // RFC 9101 §6.3: a request object's parameters are the request's; its state answers from here on.
    const { params: sent, resources } = authorizationParams(server, query);
    const params = await withRequestObject(server, client, sent);
    const answerTo: RedirectTarget = { ...target };
    if (params.state === undefined) delete answerTo.state;
    else answerTo.state = params.state;
    const request = checkRequest(server, client, answerTo, params, resources);
    const session = await readSessionParams(server, params);
    return { request: session.consent ? { ...request, promptConsent: true } : request, session };
  } catch (err) {
    if (err instanceof OAuthError) {
      // RFC 6749 §4.1.2.1: the client and its redirect_uri are known, so the error goes back to it (the flaw shows it
      // on a plain HTTP 200 page instead).
      if (server.flaws.has('authorize-errors-as-page')) throw new ShownAsPage(err);
      throw new RedirectError(target, err);
    }
    throw err;
  }
}

/** An error of a request whose redirect_uri is trusted, shown on a page instead (the flaw authorize-errors-as-page). */
class ShownAsPage extends Error {
  constructor(readonly oauth: OAuthError) {
    super(oauth.message);
  }
}

export function checkRequest(
  server: ServerContext,
  client: RegisteredClient,
  target: RedirectTarget,
  params: Params,
  resourceValues: readonly string[] = [],
): AuthorizationRequest {
  if (params.request_uri !== undefined)
    throw new OAuthError('request_uri_not_supported', 'request_uri is not supported');
  if (params.response_type === undefined && !server.flaws.has('response-type-defaulted'))
    throw invalidRequest('response_type is required');
  rejectUnknownParameters(server, params);
  const responseType = parseResponseType(params.response_type ?? 'code');
  const offered = offeredResponseTypes(server);
  if (responseType === undefined || !offered.includes(responseType)) {
    throw new OAuthError('unsupported_response_type', `response_type must be one of: ${offered.join(', ')}`);
  }
  const parts = responseParts(responseType);
  const implicit = parts.token || parts.idToken;
  // OIDC Registration §2: a hybrid response type needs both the authorization_code and the implicit grant.
  const grants = [...(parts.code ? ['authorization_code'] : []), ...(implicit ? ['implicit'] : [])];
  // Flaw implicit-for-every-client: the implicit grant is not limited to the clients configured for it.
  const missing = grants.filter(
    (grant) =>
      !clientEnables(client, grant) && !(grant === 'implicit' && server.flaws.has('implicit-for-every-client')),
  );
  if (missing.length > 0) {
    throw unauthorizedClient(`the client may not use the ${missing.join(' and ').replaceAll('_', ' ')} grant`);
  }
  const mode = responseModeFor(responseType, params.response_mode);
  if (params.response_mode !== undefined && !modeAnswers(params.response_mode, mode)) {
    throw invalidRequest(`response_type=${responseType} may not use response_mode=${params.response_mode}`);
  }
  const scope = grantScope(params.scope ?? '', client.allowedScope, server.flaws);
  checkScopeOrder(server, scope, client.allowedScope);
  if (implicit) checkImplicit(server, responseType, scope, params);
  checkEssentialAcr(server, params);
  const resources = authorizationResources(server, resourceValues);
  // OIDC Core §3.1.2.1: nonce is OPTIONAL for the code flow.
  if (!implicit && params.nonce === undefined && server.flaws.has('nonce-required-for-code'))
    throw invalidRequest('nonce is required');
  return {
    clientId: client.clientId,
    redirectUri: target.redirectUri,
    responseType,
    ...(params.response_mode === undefined ? {} : { responseMode: mode }),
    scope,
    ...(target.state === undefined ? {} : { state: target.state }),
    ...(params.nonce === undefined ? {} : { nonce: params.nonce }),
    ...(params.claims === undefined || server.flaws.has('claims-parameter-ignored')
      ? {}
      : { claims: parseClaimsRequest(params.claims) }),
    // PKCE protects the code; an implicit request has none.
    ...(parts.code ? checkPkce(server, client, params) : {}),
    ...(resources === undefined ? {} : { resources }),
    ...(parts.code ? dpopJktOf(params) : {}),
  };
}

/** RFC 7638: a SHA-256 JWK thumbprint, base64url without padding. */
const THUMBPRINT = /^[A-Za-z0-9_-]{43}$/;

/**
 * RFC 9449 §10: dpop_jkt binds the code to a DPoP key (at the PAR endpoint too, §10.1); the token endpoint then redeems
 * it only with a proof by that key (grants/authorization-code.ts).
 */
function dpopJktOf(params: Params): { dpopJkt?: string } {
  const jkt = params.dpop_jkt;
  if (jkt === undefined) return {};
  if (!THUMBPRINT.test(jkt)) throw invalidRequest('dpop_jkt must be a SHA-256 JWK thumbprint (RFC 9449 section 10)');
  return { dpopJkt: jkt };
}

/** The parameters this endpoint reads or knows (RFC 6749 §4.1.1, OIDC Core §3.1.2.1, RFC 7636 §4.3). */
const KNOWN_PARAMETERS = new Set([
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'response_mode',
  'nonce',
  'display',
  'prompt',
  'max_age',
  'ui_locales',
  'claims_locales',
  'id_token_hint',
  'login_hint',
  'acr_values',
  'claims',
  'request',
  'request_uri',
  'code_challenge',
  'code_challenge_method',
  'dpop_jkt',
]);

/**
 * RFC 6749 §3.1 and OIDC Core §3.1.2.1: parameters the server does not understand are ignored; the flaw refuses them.
 */
function rejectUnknownParameters(server: ServerContext, params: Params): void {
  if (!server.flaws.has('unknown-param-rejected')) return;
  const unknown = Object.keys(params).filter((name) => !KNOWN_PARAMETERS.has(name));
  if (unknown.length > 0) throw invalidRequest(`unknown parameter: ${unknown.join(', ')}`);
}

/**
 * OIDC Core §5.5.1.1: an essential acr with values the login cannot meet is a failed authentication, answered with
 * unmet_authentication_requirements; voluntary acr_values never refuse (the ID token then carries the acr met).
 */
function checkEssentialAcr(server: ServerContext, params: Params): void {
  if (params.claims === undefined || server.flaws.has('acr-ignored')) return;
  const wanted = essentialAcrValues(params.claims);
  if (wanted !== undefined && !wanted.includes(REFERENCE_ACR)) {
    throw new OAuthError(
      UNMET_AUTHENTICATION_REQUIREMENTS,
      `the essential acr cannot be met: this server's login meets ${REFERENCE_ACR} only`,
    );
  }
}

/** RFC 6749 §3.3: scope is a set, its order has no meaning; the flaw wants the registered order. */
function checkScopeOrder(server: ServerContext, scope: string, allowed: string): void {
  if (!server.flaws.has('scope-order-sensitive')) return;
  const order = parseScope(allowed);
  const positions = parseScope(scope).map((token) => order.indexOf(token));
  if (positions.some((p, i) => i > 0 && p < positions[i - 1]!))
    throw invalidScope('scope is not in the registered order');
}

/**
 * OIDC Core §3.2.2.1 and §3.3.2.11: a nonce against replayed ID tokens wherever the authorization endpoint returns one
 * (this server asks it of the plain OAuth "token" response too; "code token" returns no ID token there and needs
 * none); an ID token needs openid. The flaw implicit-nonce-optional takes such requests without nonce.
 */
function checkImplicit(server: ServerContext, responseType: ResponseType, scope: string, params: Params): void {
  const { idToken } = responseParts(responseType);
  if (
    params.nonce === undefined &&
    (idToken || responseType === 'token') &&
    !server.flaws.has('implicit-nonce-optional')
  )
    throw invalidRequest('nonce is required where the authorization endpoint returns an ID token');
  if (idToken && !hasScope(scope, 'openid')) {
    throw invalidRequest(`response_type '${responseType}' requires the openid scope`);
  }
}

/**
 * The response types in discovery (OIDC Discovery §3): code; with a client of the implicit grant, token, and for an
 * OpenID provider id_token and id_token token (OIDC Core §3.2); with a client of both grants, the hybrid ones (§3.3).
 */
function offeredResponseTypes(server: ServerContext): ResponseType[] {
  if (!implicitOffered(server)) return ['code'];
  if (server.options.oauthOnly) return ['code', 'token'];
  const hybrid = server.clients.some((c) =>
    (['implicit', 'authorization_code'] as const).every((g) => c.grantTypes.includes(g)),
  );
  return ['code', 'token', 'id_token', 'id_token token', ...(hybrid ? HYBRID_TYPES : [])];
}

const HYBRID_TYPES: ResponseType[] = ['code id_token', 'code token', 'code id_token token'];

/** The implicit grant (deprecated, RFC 9700 §2.1.2) is offered only when some client enables it. */
function implicitOffered(server: ServerContext): boolean {
  return someClientEnables(server.clients, 'implicit');
}

/**
 * The checks of GET /auth on a request's query, for the fixture's test login and auto-login: the
 * request as it would be stored, or the OAuthError the endpoint would answer (on the page or at
 * the redirect_uri).
 */
export async function checkAuthorizationRequest(
  server: ServerContext,
  query: URLSearchParams,
): Promise<AuthorizationRequest> {
  return (await checkAuthorizationRequestWithSession(server, query)).request;
}

/** checkAuthorizationRequest, with the request's prompt, max_age and id_token_hint as read. */
export async function checkAuthorizationRequestWithSession(
  server: ServerContext,
  query: URLSearchParams,
): Promise<{ request: AuthorizationRequest; session: SessionParams }> {
  const { client, target } = await resolveClientAndRedirect(server, query);
  try {
    return await validateRequest(server, client, target, query);
  } catch (err) {
    if (err instanceof RedirectError) throw err.oauth;
    throw err;
  }
}
