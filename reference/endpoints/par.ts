import type { Context } from 'koa';
import { paramsAndResources, parseFormPairs, type Params } from '../http/body.ts';
import { authenticate } from '../http/client-assertion.ts';
import { invalidRequest } from '../oauth-error.ts';
import { noStore } from '../http/headers.ts';
import { randomToken } from '../tokens.ts';
import { checkRequest, redirectUriRegistered } from './authorize.ts';
import type { Endpoint } from './endpoint.ts';
import { REQUEST_URI_PREFIX } from '../../protocol/grants.ts';
import { withRequestObject } from './request-object.ts';
import { pushedRequestJkt } from '../http/dpop.ts';

export { REQUEST_URI_PREFIX } from '../../protocol/grants.ts';

/** Parameters that say how the client authenticates: not part of the authorization request. */
const AUTH_PARAMETERS = ['client_secret', 'client_assertion', 'client_assertion_type'];

export const parEndpoint: Endpoint = {
  mount(router, server) {
    const push = async (ctx: Context) => {
      // RFC 8707 §2.1: resource may be repeated; every other parameter once (RFC 9126 §2.1, RFC 6749 §3.1). The flaw
      // par-duplicate-params-accepted keeps a repeated parameter's first value instead.
      const repeated = server.flaws.has('par-duplicate-params-accepted') ? 'first-wins' : 'refused';
      // RFC 9126 §2.3: a request that does not use POST gets 405 (the router's answer); the flaw par-accepts-get
      // takes a GET's query string as the pushed request.
      const pairs = ctx.method === 'GET' ? new URLSearchParams(ctx.querystring) : await parseFormPairs(ctx);
      const { params, resources: resourceValues } = paramsAndResources(pairs, repeated);
      const { client, method } = await authenticate(ctx, params, server);
      if (params.client_id !== undefined && params.client_id !== client.clientId) {
        throw invalidRequest('client_id differs from the authenticated client');
      }
      // §2.1: request_uri must not be pushed; the request itself is checked like one at /auth.
      if (params.request_uri !== undefined) throw invalidRequest('request_uri must not be sent to the PAR endpoint');
      const redirectUri = params.redirect_uri;
      if (redirectUri === undefined) throw invalidRequest('redirect_uri is required');
      // Variant par-redirect-relaxed (RFC 9126 §2.4): an authenticated client may push a redirect URI it never
      // registered, if it is an absolute URI without a fragment (RFC 6749 §3.1.2).
      const registered = redirectUriRegistered(server, client, redirectUri);
      const relaxed =
        !registered && method !== 'none' && server.variants.has('par-redirect-relaxed') && absolute(redirectUri);
      if (!registered && !relaxed) throw invalidRequest('redirect_uri is not registered for this client');
      // A request object is verified when pushed too (RFC 9126 §3), and checked with what it says.
      const checked = await withRequestObject(server, client, params);
      checkRequest(
        server,
        client,
        { redirectUri, ...(checked.state === undefined ? {} : { state: checked.state }) },
        checked,
        resourceValues,
      );
      // RFC 9449 §10.1: dpop_jkt in the body, or a DPoP header that binds the code to its key.
      const dpopJkt = await pushedRequestJkt(ctx, server, params.dpop_jkt);
      const requestUri = `${REQUEST_URI_PREFIX}${randomToken()}`;
      const pushed: Record<string, string> = {
        ...withoutAuth(params),
        client_id: client.clientId,
        ...(dpopJkt === undefined ? {} : { dpop_jkt: dpopJkt }),
      };
      const lifetime = server.security.parLifetime;
      await server.store.savePushedRequest({
        requestUri,
        clientId: client.clientId,
        params: pushed,
        ...(resourceValues.length === 0 ? {} : { resources: resourceValues }),
        ...(relaxed ? { unregisteredRedirect: true } : {}),
        expiresAt: server.now() + lifetime * 1000,
      });
      ctx.status = 201;
      ctx.body = { request_uri: requestUri, expires_in: lifetime };
    };
    router.post('/par', noStore(server.flaws), push);
    if (server.flaws.has('par-accepts-get')) router.get('/par', noStore(server.flaws), push);
  },
  metadata: (server) => ({
    pushed_authorization_request_endpoint: server.url('/par'),
    require_pushed_authorization_requests: server.security.parRequired || server.flaws.has('par-not-enforced'),
  }),
};

/** RFC 6749 §3.1.2: an absolute URI, no fragment. */
function absolute(uri: string): boolean {
  return URL.canParse(uri) && !uri.includes('#');
}

function withoutAuth(params: Params): Record<string, string> {
  return Object.fromEntries(Object.entries(params).filter(([name]) => !AUTH_PARAMETERS.includes(name)));
}
