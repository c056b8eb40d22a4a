/**
 * Resource indicators (RFC 8707 §2): a token request may name the resource server the access
 * token is for; the token's aud is then that resource alone. A resource this server does not
 * know is invalid_target. An authorization request may name several (§2.1): the code remembers
 * them, and the token requests of its grant may pick one of them, never another (§2.2).
 */
import type { ServerContext } from '../context.ts';
import { OAuthError } from '../oauth-error.ts';

export function requestedResource(server: ServerContext, resource: string | undefined): string | undefined {
  // Flaw resource-ignored: the parameter is read by nobody.
  if (resource === undefined || server.flaws.has('resource-ignored')) return undefined;
  checkResource(server, resource);
  // This server itself is the default resource (RFC 9068 §3): naming it keeps the default audience.
  if (resource === server.issuer) return undefined;
  return resource;
}

/** §2: an absolute URI without a fragment, one this server knows (itself or a resource of the settings). */
function checkResource(server: ServerContext, resource: string): void {
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    throw new OAuthError('invalid_target', 'resource must be an absolute URI');
  }
  if (url.hash || resource.includes('#'))
    throw new OAuthError('invalid_target', 'resource must not contain a fragment');
  if (resource !== server.issuer && !server.security.resources.includes(resource))
    throw new OAuthError('invalid_target', 'the resource is unknown to this server');
}

/**
 * §2.1: the resources of an authorization request (the `resource` parameter, repeatable), each checked; undefined
 * when it names none. Flaw resource-ignored-in-code-flow: nobody reads them.
 */
export function authorizationResources(server: ServerContext, values: readonly string[]): string[] | undefined {
  if (values.length === 0 || server.flaws.has('resource-ignored-in-code-flow')) return undefined;
  for (const value of values) checkResource(server, value);
  return [...new Set(values)];
}

/**
 * §2.2: the audience of a token of a grant whose authorization request named `granted` (undefined: none), asked for
 * `asked` at the token request (already checked by requestedResource): one of the granted ones, never another
 * (invalid_target); without one, the granted resource when there is exactly one. Undefined: the default audience.
 * Flaw resource-ignored-in-code-flow: the code grant's token keeps the default audience, a refresh takes any.
 */
export function grantAudience(
  server: ServerContext,
  grant: 'code' | 'refresh',
  asked: string | undefined,
  granted: readonly string[] | undefined,
): string | undefined {
  if (server.flaws.has('resource-ignored-in-code-flow')) return grant === 'code' ? undefined : asked;
  if (granted === undefined) return asked;
  if (asked !== undefined && !granted.includes(asked))
    throw new OAuthError('invalid_target', 'the resource was not among those of the authorization request');
  return asked ?? (granted.length === 1 ? granted[0] : undefined);
}
