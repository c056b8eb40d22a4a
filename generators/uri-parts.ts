/**
 * A redirect URI split into its RFC 3986 §3 components, as written: no normalisation, so
 * `formatUri(parseUri(s)) === s` for every URI this accepts. The near-miss generator edits one
 * component at a time and needs the exact text of the others.
 */
export interface UriAuthority {
  userinfo?: string;
  /** The host as written: a reg-name, an IPv4 address or a bracketed IP literal. */
  host: string;
  /** The port digits as written (without ':'); absent when the URI has no port. */
  port?: string;
}

export interface UriParts {
  scheme: string;
  /** Absent for URIs without `//`, e.g. private-use schemes of native apps (RFC 8252 §7.1). */
  authority?: UriAuthority;
  path: string;
  /** The query without its '?'; absent when there is no '?'. */
  query?: string;
}

const URI = /^([A-Za-z][A-Za-z0-9+.-]*):(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(#.*)?$/;
const AUTHORITY = /^(?:([^@]*)@)?(\[[^\]]*\]|[^:]*)(?::(\d*))?$/;

export function parseUri(uri: string): UriParts {
  const match = URI.exec(uri);
  if (!match) throw new Error(`not an absolute URI (RFC 3986 §4.3): ${uri}`);
  const [, scheme = '', authorityText, path = '', query, fragment] = match;
  // RFC 6749 §3.1.2: the redirection endpoint URI MUST NOT include a fragment component.
  if (fragment !== undefined) throw new Error(`a redirect URI must not have a fragment (RFC 6749 §3.1.2): ${uri}`);
  const parts: UriParts = { scheme, path };
  if (query !== undefined) parts.query = query;
  if (authorityText !== undefined) {
    const auth = AUTHORITY.exec(authorityText);
    if (!auth) throw new Error(`cannot parse the authority of ${uri}`);
    const [, userinfo, host = '', port] = auth;
    parts.authority = { host };
    if (userinfo !== undefined) parts.authority.userinfo = userinfo;
    if (port !== undefined) parts.authority.port = port;
  }
  if (formatUri(parts) !== uri) throw new Error(`cannot split ${uri} into components losslessly`);
  return parts;
}

export function formatAuthority(authority: UriAuthority): string {
  const userinfo = authority.userinfo === undefined ? '' : `${authority.userinfo}@`;
  const port = authority.port === undefined ? '' : `:${authority.port}`;
  return `${userinfo}${authority.host}${port}`;
}

export function formatUri(parts: UriParts): string {
  const authority = parts.authority === undefined ? '' : `//${formatAuthority(parts.authority)}`;
  const query = parts.query === undefined ? '' : `?${parts.query}`;
  return `${parts.scheme}:${authority}${parts.path}${query}`;
}

/** `scheme://authority` (or `scheme:` when there is no authority): everything before the path. */
export function uriOrigin(parts: UriParts): string {
  return formatUri({ scheme: parts.scheme, authority: parts.authority, path: '' });
}

export function isIpHost(host: string): boolean {
  return host.startsWith('[') || /^\d+(\.\d+){3}$/.test(host);
}

/** Loopback hosts whose port a native-app client may choose freely (RFC 8252 §7.3, RFC 9700 §4.1.3). */
export function isLoopbackHost(host: string): boolean {
  return /^127(\.\d+){3}$/.test(host) || host === '[::1]' || host.toLowerCase() === 'localhost';
}

export const DEFAULT_PORTS: Readonly<Record<string, string>> = { http: '80', https: '443' };
