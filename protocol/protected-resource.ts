/**
 * Protected resource facts (RFC 9728): where a resource's metadata is, by inserting the well-known suffix between
 * the host and the path (§3.1), and which hosts are loopback (RFC 8252 §7.3; MCP's "localhost" redirect URIs).
 */

/** The RFC 9728 well-known URI suffix (§3). */
export const PROTECTED_RESOURCE_SUFFIX = 'oauth-protected-resource';

/**
 * The metadata URL of a resource identifier (RFC 9728 §3.1): `/.well-known/oauth-protected-resource` inserted between
 * the host and the path and query, a terminating slash after the host removed first. Undefined for a URL that is not
 * http(s) or has a fragment (not a resource identifier, RFC 9728 §1.2).
 */
export function protectedResourceMetadataUrl(resource: string): string | undefined {
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.hash || resource.includes('#')) return undefined;
  const path = url.pathname === '/' ? '' : url.pathname;
  return `${url.origin}/.well-known/${PROTECTED_RESOURCE_SUFFIX}${path}${url.search}`;
}

/** The root metadata URL (MCP's fallback when the path-inserted one is not served), or undefined as above. */
export function rootProtectedResourceMetadataUrl(resource: string): string | undefined {
  return protectedResourceMetadataUrl(resource) === undefined
    ? undefined
    : `${new URL(resource).origin}/.well-known/${PROTECTED_RESOURCE_SUFFIX}`;
}

/** Whether a URL's host is loopback: localhost, 127.0.0.0/8 or [::1] (RFC 8252 §7.3, §8.3). */
export function isLoopbackUrl(value: string): boolean {
  let host: string;
  try {
    host = new URL(value).hostname.toLowerCase();
  } catch {
    return false;
  }
  return host === 'localhost' || host.endsWith('.localhost') || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}
