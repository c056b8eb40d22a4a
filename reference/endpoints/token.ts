/**
 * POST /token (RFC 6749 §3.2) as one list of named Koa middlewares, in the style of oidc-provider's
 * lib/actions/token.js: noStoreHeaders → parseTokenBody → supportedGrantTypeCheck →
 * authenticateClient → allowedGrantTypeCheck → bindIssuedTokens → callGrantHandler. Each step
 * reads what the steps before it established for the request; the first to throw answers (an RFC 6749
 * §5.2 error body), so the order is the order of the errors.
 */
import type { Context, Middleware, Next } from 'koa';
import { parseBody, parseQuery, type BodyEncoding, type Params } from '../http/body.ts';
import { acceptedJwsAlgs, authenticate } from '../http/client-assertion.ts';
import { DPOP_ALGS, tokenEndpointProof, tokenRequestBinding } from '../http/dpop.ts';
import { requestedResource } from '../http/resource.ts';
import { invalidRequest, OAuthError, unauthorizedClient } from '../oauth-error.ts';
import { noStore } from '../http/headers.ts';
import type { ServerContext } from '../context.ts';
import { findGrant, GRANTS } from '../grants/index.ts';
import type { Grant } from '../grants/grant.ts';
import { clientEnables, type RegisteredClient, someClientEnables } from '../options.ts';
import type { Endpoint } from './endpoint.ts';

export const TOKEN_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none'] as const;

/** The parameters that carry client authentication in a request body (RFC 6749 §2.3.1, RFC 7521 §4.2). */
const URI_CREDENTIALS = ['client_id', 'client_secret', 'client_assertion', 'client_assertion_type'];

export const tokenEndpoint: Endpoint = {
  mount(router, server) {
    router.post('/token', ...tokenAction(server));
    // RFC 6749 §3.2: access token requests use POST; a GET gets 405 from the router. The flaw token-accepts-get
    // answers a GET too, its parameters read from the query string.
    if (server.flaws.has('token-accepts-get')) router.get('/token', ...tokenAction(server));
  },
  // The hot endpoint (`npm run bench`): POST /token exactly is answered before the router (server.ts).
  hotPath: (server) => ({ method: 'POST', path: '/token', handler: runSteps(tokenAction(server)) }),
  metadata: (server) => ({
    token_endpoint: server.url('/token'),
    token_endpoint_auth_methods_supported: [...server.security.authMethods],
    token_endpoint_auth_signing_alg_values_supported: acceptedJwsAlgs(server),
    dpop_signing_alg_values_supported: DPOP_ALGS,
    grant_types_supported: [
      ...GRANTS.filter((grant) => !grant.deprecated || someClientEnables(server.clients, grant.grantType)).map(
        (grant) => grant.grantType,
      ),
      // Issued at the authorization endpoint (grants/implicit.ts), so not in the token endpoint's registry.
      ...(someClientEnables(server.clients, 'implicit') ? ['implicit'] : []),
    ],
  }),
};

function pick(params: Params, names: readonly string[]): Params {
  const picked: Record<string, string> = Object.create(null);
  for (const name of names) {
    const value = params[name];
    if (value !== undefined) picked[name] = value;
  }
  return picked;
}

/** What the steps have established for a request: the body, then the grant, then the client. */
interface TokenRequestState {
  params: Params;
  grant?: Grant;
  client?: RegisteredClient;
}

const requests = new WeakMap<Context, TokenRequestState>();

function stateOf(ctx: Context): TokenRequestState {
  const state = requests.get(ctx);
  if (state === undefined) throw new Error('the token steps run in order: the body is parsed first');
  return state;
}

/** The state once the grant and the client are known (the steps after allowedGrantTypeCheck). */
function established(ctx: Context): Required<TokenRequestState> {
  const { params, grant, client } = stateOf(ctx);
  if (grant === undefined || client === undefined) throw new Error('the token steps run in order');
  return { params, grant, client };
}

/**
 * A list of middlewares run as one, in order, each step's `next` the one after it (what koa-compose does for the
 * router): the hot path's handler.
 */
export function runSteps(steps: readonly Middleware[]): (ctx: Context) => Promise<void> {
  return (ctx) => {
    let at = 0;
    /** The step at `at`, handed this same `next`: one `next` per request (each step calls it once, after its work). */
    const next: Next = async () => {
      const middleware = steps[at++];
      if (middleware) await middleware(ctx, next);
    };
    return next();
  };
}

/** The token endpoint's steps, in order. */
export function tokenAction(server: ServerContext): Middleware[] {
  /** The body, form or JSON (the spec), size-limited, no repeated parameters (http/body.ts). */
  const encodings: readonly BodyEncoding[] = server.flaws.has('json-body-rejected') ? ['form'] : ['form', 'json'];
  async function parseTokenBody(ctx: Context, next: Next): Promise<void> {
    // A GET reaches here only under the flaw token-accepts-get: its query string is its parameters.
    const params =
      ctx.method === 'GET' ? parseQuery(ctx.querystring) : withUriCredentials(ctx, await parseBody(ctx, encodings));
    requests.set(ctx, { params });
    await next();
  }

  /**
   * RFC 6749 §2.3.1: client credentials "can only be transmitted in the request-body and MUST NOT be included in the
   * request URI": a request whose URI carries them is refused (invalid_request, §5.2). The flaw
   * client-secret-in-query-accepted takes them from there as the client's authentication instead.
   */
  function withUriCredentials(ctx: Context, params: Params): Params {
    if (ctx.querystring === '') return params;
    const query = new URLSearchParams(ctx.querystring);
    const secrets = ['client_secret', 'client_assertion'].filter((name) => query.has(name));
    if (secrets.length === 0) return params;
    if (!server.flaws.has('client-secret-in-query-accepted'))
      throw invalidRequest(`client credentials (${secrets.join(', ')}) must not be sent in the request URI`);
    return { ...pick(parseQuery(ctx.querystring), URI_CREDENTIALS), ...params };
  }

  /** grant_type is present and names a grant of the registry (grants/index.ts). */
  async function supportedGrantTypeCheck(ctx: Context, next: Next): Promise<void> {
    const state = stateOf(ctx);
    const grantType = state.params.grant_type;
    if (grantType === undefined) throw invalidRequest('grant_type is required');
    const grant = findGrant(grantType);
    if (!grant)
      throw new OAuthError('unsupported_grant_type', `grant_type '${grantType.slice(0, 60)}' is not supported`);
    state.grant = grant;
    await next();
  }

  /** Client authentication (RFC 6749 §2.3, RFC 7523 assertions; http/client-assertion.ts). */
  async function authenticateClient(ctx: Context, next: Next): Promise<void> {
    const state = stateOf(ctx);
    state.client = (await authenticate(ctx, state.params, server)).client;
    await next();
  }

  /** The client may use this grant (RFC 6749 §5.2 unauthorized_client). */
  async function allowedGrantTypeCheck(ctx: Context, next: Next): Promise<void> {
    const { client, grant } = established(ctx);
    if (!clientEnables(client, grant.grantType)) {
      throw unauthorizedClient(`the client may not use the ${grant.grantType} grant`);
    }
    await next();
  }

  /** RFC 9449 §5 and RFC 8707 §2.2: what the issued tokens are bound and restricted to, for the steps after. */
  async function bindIssuedTokens(ctx: Context, next: Next): Promise<void> {
    const jkt = await tokenEndpointProof(ctx, server);
    const resource = requestedResource(server, stateOf(ctx).params.resource);
    // Nothing to bind: currentBinding() is already empty, and no AsyncLocalStorage context is entered (on Node 20
    // the first run() turns on promise hooks for the whole process, a cost on every promise after it).
    if (jkt === undefined && resource === undefined) return next();
    const binding = { ...(jkt === undefined ? {} : { jkt }), ...(resource === undefined ? {} : { resource }) };
    await tokenRequestBinding.run(binding, next);
  }

  /** The grant's handler, with the parameters on its allow-list only; its token response is the body. */
  async function callGrantHandler(ctx: Context): Promise<void> {
    const { grant, client, params } = established(ctx);
    const response = await grant.handler({ ctx, server, client, params: pick(params, grant.parameters) });
    // What Koa does with an object body (the same header, the same bytes), without its content-type lookup per token.
    ctx.set('Content-Type', 'application/json; charset=utf-8');
    ctx.body = JSON.stringify(response);
  }

  return [
    noStore(server.flaws),
    parseTokenBody,
    supportedGrantTypeCheck,
    authenticateClient,
    allowedGrantTypeCheck,
    bindIssuedTokens,
    callGrantHandler,
  ];
}
