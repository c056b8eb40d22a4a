/**
 * GET /.well-known/openid-configuration (OIDC Discovery §3, §4): built from every endpoint's metadata. On an
 * OAuth-only server (options.oauthOnly) GET /.well-known/oauth-authorization-server (RFC 8414 §2, §3) instead, with
 * no OpenID provider field.
 */
import type { Context } from 'koa';
import { scopeClaimMap } from '../scopes.ts';
import { OIDC_SCOPES, SCOPES_SUPPORTED } from '../options.ts';
import type { ServerContext } from '../context.ts';
import { acceptedJwsAlgs } from '../http/client-assertion.ts';
import { REFERENCE_ACR } from '../tokens.ts';
import type { Endpoint } from './endpoint.ts';

const ID_TOKEN_CLAIMS = ['sub', 'iss', 'aud', 'exp', 'iat', 'nbf', 'auth_time', 'acr', 'nonce', 'at_hash'];

/** RFC 8414 §3: where an authorization server without a path in its issuer publishes its metadata. */
export const RFC8414_PATH = '/.well-known/oauth-authorization-server';

export function discoveryDocument(server: ServerContext, endpoints: readonly Endpoint[]): Record<string, unknown> {
  const issuer = server.flaws.has('discovery-issuer-mismatch') ? `${server.issuer}/elsewhere` : server.issuer;
  if (server.options.oauthOnly) return authorizationServerMetadata(server, endpoints, issuer);
  return {
    issuer,
    ...Object.assign({}, ...endpoints.map((endpoint) => endpoint.metadata?.(server) ?? {})),
    // OIDC Discovery §3: REQUIRED; the flaw leaves it out.
    ...(server.flaws.has('discovery-field-missing') ? {} : { subject_types_supported: ['public'] }),
    // The alg the current key signs with, and RS256 when a key of it is kept beside (OIDC Core §15.1); older keys only
    // verify what they signed before a rotation.
    id_token_signing_alg_values_supported: server.keys.signingAlgs,
    // The options' own scopes (scopeClaims) and the claims they release are advertised too.
    scopes_supported: [...new Set([...SCOPES_SUPPORTED, ...Object.keys(server.options.scopeClaims ?? {})])],
    claims_supported: [
      ...new Set([...ID_TOKEN_CLAIMS, ...Object.values(scopeClaimMap(server.options.scopeClaims)).flat()]),
    ],
    claims_parameter_supported: true,
    // OIDC Discovery §3: the one class the login meets (OIDC Core §2 acr; essential and unmet: refused).
    acr_values_supported: [REFERENCE_ACR],
    // RFC 9101 §5.1 by value, signed with a key the client registered (reference/request-object.ts).
    request_parameter_supported: true,
    // RFC 9101 §6.2: the client-assertion algorithms.
    request_object_signing_alg_values_supported: acceptedJwsAlgs(server),
    request_uri_parameter_supported: false,
  };
}

/** RFC 8414 §2 metadata of the OAuth-only server: the OAuth endpoints' fields and the OAuth scopes, nothing of OIDC. */
function authorizationServerMetadata(
  server: ServerContext,
  endpoints: readonly Endpoint[],
  issuer: string,
): Record<string, unknown> {
  const doc: Record<string, unknown> = {
    issuer,
    ...Object.assign({}, ...endpoints.filter((e) => !e.oidcOnly).map((e) => e.metadata?.(server) ?? {})),
    scopes_supported: [...SCOPES_SUPPORTED, ...Object.keys(server.options.scopeClaims ?? {})].filter(
      (s) => !OIDC_SCOPES.includes(s),
    ),
  };
  // RFC 8414 §2: REQUIRED; the flaw leaves it out (on an OpenID provider it leaves out subject_types_supported).
  if (server.flaws.has('discovery-field-missing')) delete doc.response_types_supported;
  return doc;
}

export function discoveryEndpoint(endpoints: readonly Endpoint[]): Endpoint {
  return {
    mount(router, server) {
      const serve = (ctx: Context) => {
        ctx.set('Cache-Control', 'public, max-age=60');
        // Flaw as-metadata-text-plain: the metadata is JSON, but labelled text/plain (RFC 8414 §3.2: application/json).
        ctx.type = server.flaws.has('as-metadata-text-plain') ? 'text/plain' : 'application/json';
        ctx.body = JSON.stringify(discoveryDocument(server, endpoints));
      };
      router.get(server.options.oauthOnly ? RFC8414_PATH : '/.well-known/openid-configuration', serve);
      // MCP 2025-06-18 asks for RFC 8414 metadata: an OpenID provider under `mcp` publishes it there too.
      if (server.options.mcp && !server.options.oauthOnly) router.get(RFC8414_PATH, serve);
    },
  };
}
