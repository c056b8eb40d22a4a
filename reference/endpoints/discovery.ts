/** GET /.well-known/openid-configuration (OIDC Discovery §3, §4): built from every endpoint's metadata. */
import { scopeClaimMap } from '../scopes.ts';
import { SCOPES_SUPPORTED } from '../options.ts';
import type { ServerContext } from '../context.ts';
import type { Endpoint } from './endpoint.ts';

const ID_TOKEN_CLAIMS = ['sub', 'iss', 'aud', 'exp', 'iat', 'nbf', 'auth_time', 'nonce', 'at_hash'];

export function discoveryDocument(server: ServerContext, endpoints: readonly Endpoint[]): Record<string, unknown> {
  const issuer = server.flaws.has('discovery-issuer-mismatch') ? `${server.issuer}/elsewhere` : server.issuer;
  return {
    issuer,
    ...Object.assign({}, ...endpoints.map((endpoint) => endpoint.metadata?.(server) ?? {})),
    // OIDC Discovery §3: REQUIRED; the flaw leaves it out.
    ...(server.flaws.has('discovery-field-missing') ? {} : { subject_types_supported: ['public'] }),
    // The alg the current key signs with; older keys only verify what they signed before a rotation.
    id_token_signing_alg_values_supported: [server.keys.current.alg],
    // The options' own scopes (scopeClaims) and the claims they release are advertised too.
    scopes_supported: [...new Set([...SCOPES_SUPPORTED, ...Object.keys(server.options.scopeClaims ?? {})])],
    claims_supported: [
      ...new Set([...ID_TOKEN_CLAIMS, ...Object.values(scopeClaimMap(server.options.scopeClaims)).flat()]),
    ],
    claims_parameter_supported: true,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
  };
}

export function discoveryEndpoint(endpoints: readonly Endpoint[]): Endpoint {
  return {
    mount(router, server) {
      router.get('/.well-known/openid-configuration', (ctx) => {
        ctx.set('Cache-Control', 'public, max-age=60');
        ctx.body = discoveryDocument(server, endpoints);
      });
    },
  };
}
