/**
 * POST /token (RFC 6749 §3.2). The steps, in order: no-store headers → body (form or JSON,
 * size-limited, no repeated parameters) → grant_type → client authentication → the client may
 * use the grant → the grant's handler with its allowed parameters only.
 */
import { parseBody, type BodyEncoding, type Params } from '../http/body.ts';
import { ASSERTION_ALGS, authenticate } from '../http/client-assertion.ts';
import { DPOP_ALGS, tokenEndpointProof, tokenRequestBinding } from '../http/dpop.ts';
import { requestedResource } from '../http/resource.ts';
import { invalidRequest, OAuthError, unauthorizedClient } from '../http/errors.ts';
import { noStore } from '../http/headers.ts';
import { findGrant, GRANTS } from '../grants/index.ts';
import { someClientEnables } from '../options.ts';
import type { Endpoint } from './endpoint.ts';

export const TOKEN_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none'] as const;

export const tokenEndpoint: Endpoint = {
  mount(router, server) {
    router.post('/token', noStore(server.flaws), async (ctx) => {
      const encodings: BodyEncoding[] = server.flaws.has('json-body-rejected') ? ['form'] : ['form', 'json'];
      const params = await parseBody(ctx, encodings);
      const grantType = params.grant_type;
      if (grantType === undefined) throw invalidRequest('grant_type is required');
      const grant = findGrant(grantType);
      if (!grant)
        throw new OAuthError('unsupported_grant_type', `grant_type '${grantType.slice(0, 60)}' is not supported`);
      const { client } = await authenticate(ctx, params, server);
      if (!(client.grantTypes as readonly string[]).includes(grantType)) {
        throw unauthorizedClient(`the client may not use the ${grantType} grant`);
      }
      // RFC 9449 §5 and RFC 8707 §2.2: what the issued tokens are bound and restricted to.
      const jkt = await tokenEndpointProof(ctx, server);
      const resource = requestedResource(server, params.resource);
      const binding = { ...(jkt === undefined ? {} : { jkt }), ...(resource === undefined ? {} : { resource }) };
      ctx.body = await tokenRequestBinding.run(binding, () =>
        grant.handler({ ctx, server, client, params: pick(params, grant.parameters) }),
      );
    });
  },
  metadata: (server) => ({
    token_endpoint: server.url('/token'),
    token_endpoint_auth_methods_supported: [...server.security.authMethods],
    token_endpoint_auth_signing_alg_values_supported: ASSERTION_ALGS,
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
