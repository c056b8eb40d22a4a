/**
 * Resource indicators (RFC 8707 §2): a token request may name the resource server the access
 * token is for; the token's aud is then that resource alone. A resource this server does not
 * know is invalid_target.
 */
import type { ServerContext } from '../context.ts';
import { OAuthError } from '../oauth-error.ts';

export function requestedResource(server: ServerContext, resource: string | undefined): string | undefined {
  // Flaw resource-ignored: the parameter is read by nobody.
  if (resource === undefined || server.flaws.has('resource-ignored')) return undefined;
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    throw new OAuthError('invalid_target', 'resource must be an absolute URI');
  }
  if (url.hash) throw new OAuthError('invalid_target', 'resource must not contain a fragment');
  // This server itself is the default resource (RFC 9068 §3): naming it keeps the default audience.
  if (resource === server.issuer) return undefined;
  if (!server.security.resources.includes(resource))
    throw new OAuthError('invalid_target', 'the resource is unknown to this server');
  return resource;
}
