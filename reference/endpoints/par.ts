/**
 * POST /par: pushed authorization requests (RFC 9126). The client authenticates as at the token
 * endpoint; the request is validated as the authorization endpoint would (§2.1) and kept in the
 * Store under a fresh request_uri, answered 201 with expires_in (§2.2). At /auth, a request_uri
 * is single use, expires, and works only for the client that pushed it (§4); where PAR is
 * required (§5), a request without one is refused.
 */
import type { ServerContext } from '../context.ts';
import { parseBody, type Params } from '../http/body.ts';
import { authenticate } from '../http/client-assertion.ts';
import { invalidRequest, OAuthError } from '../http/errors.ts';
import { noStore } from '../http/headers.ts';
import { randomToken } from '../tokens.ts';
import { checkRequest, redirectUriRegistered } from './authorize.ts';
import type { Endpoint } from './endpoint.ts';
import { REQUEST_URI_PREFIX } from '../../protocol/grants.ts';

export { REQUEST_URI_PREFIX } from '../../protocol/grants.ts';

/** Parameters that say how the client authenticates: not part of the authorization request. */
const AUTH_PARAMETERS = ['client_secret', 'client_assertion', 'client_assertion_type'];

export const parEndpoint: Endpoint = {
  mount(router, server) {
    router.post('/par', noStore(server.flaws), async (ctx) => {
      const params = await parseBody(ctx, ['form']);
      const { client } = await authenticate(ctx, params, server);
      if (params.client_id !== undefined && params.client_id !== client.clientId) {
        throw invalidRequest('client_id differs from the authenticated client');
      }
      // §2.1: request_uri must not be pushed; the request itself is checked like one at /auth.
      if (params.request_uri !== undefined) throw invalidRequest('request_uri must not be sent to the PAR endpoint');
      const redirectUri = params.redirect_uri;
      if (redirectUri === undefined) throw invalidRequest('redirect_uri is required');
      if (!redirectUriRegistered(server, client, redirectUri))
        throw invalidRequest('redirect_uri is not registered for this client');
      checkRequest(
        server,
        client,
        { redirectUri, ...(params.state === undefined ? {} : { state: params.state }) },
        params,
      );
      const requestUri = `${REQUEST_URI_PREFIX}${randomToken()}`;
      const pushed: Record<string, string> = { ...withoutAuth(params), client_id: client.clientId };
      const lifetime = server.security.parLifetime;
      await server.store.savePushedRequest({
        requestUri,
        clientId: client.clientId,
        params: pushed,
        expiresAt: server.now() + lifetime * 1000,
      });
      ctx.status = 201;
      ctx.body = { request_uri: requestUri, expires_in: lifetime };
    });
  },
  metadata: (server) => ({
    pushed_authorization_request_endpoint: server.url('/par'),
    require_pushed_authorization_requests: server.security.parRequired || server.flaws.has('par-not-enforced'),
  }),
};

function withoutAuth(params: Params): Record<string, string> {
  return Object.fromEntries(Object.entries(params).filter(([name]) => !AUTH_PARAMETERS.includes(name)));
}

/**
 * The parameters of an authorization request at /auth: a pushed request's, by its request_uri
 * (single use, unexpired, this client's), or the query's where PAR is not required.
 */
export async function authorizationParameters(server: ServerContext, query: URLSearchParams): Promise<URLSearchParams> {
  const { flaws } = server;
  const requestUri = query.get('request_uri');
  if (requestUri === null || !requestUri.startsWith(REQUEST_URI_PREFIX)) {
    // Flaw par-not-enforced: discovery says required, but the plain request goes through.
    if (server.security.parRequired && !flaws.has('par-not-enforced')) {
      throw invalidRequest(
        'this server requires pushed authorization requests (RFC 9126): push the request to the PAR endpoint first',
      );
    }
    return query;
  }
  const clientId = query.get('client_id');
  if (clientId === null) throw invalidRequest('client_id is required with request_uri');
  const record = await server.store.consumePushedRequest(requestUri);
  if (!record) throw new OAuthError('invalid_request_uri', 'the request_uri is unknown, expired or already used');
  // Flaw par-request-uri-reuse: the consumed request is put back, for anyone to use again.
  if (flaws.has('par-request-uri-reuse')) await server.store.savePushedRequest(record);
  if (record.clientId !== clientId && !flaws.has('par-not-client-bound')) {
    throw new OAuthError('invalid_request_uri', 'the request_uri was pushed by another client');
  }
  return new URLSearchParams(record.params);
}
