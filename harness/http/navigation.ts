/**
 * What a browser sends with a top-level navigation (a link followed, a form submitted, an address
 * typed), so that an IdP that tells navigations from scripts (Fetch Metadata) or checks the Origin
 * of a form POST against cross-site request forgery answers the form driver as it answers a user:
 * `Sec-Fetch-Site` / `-Mode` / `-Dest` / `-User` (W3C Fetch Metadata Request Headers), `Accept`,
 * `Upgrade-Insecure-Requests`, a browser's `User-Agent`, and `Origin` and `Referer` as the Fetch
 * standard computes them from the page the user acted on and its referrer policy (default
 * strict-origin-when-cross-origin; the page's `Referrer-Policy` header when it sends one).
 * Back-channel requests (token, userinfo, introspection…) carry none of this: they are a
 * server-side client's.
 */
import { getPublicSuffix } from 'tough-cookie';
import { effectiveReferrerPolicy } from '../../protocol/referrer-policy.ts';

/** The default navigation User-Agent (target config `login.userAgent` replaces it): a current desktop Chromium's. */
export const BROWSER_USER_AGENT =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
/** The User-Agent of back-channel requests: a server-side client that names itself. */
export const CLIENT_USER_AGENT = 'idp-conformance';
/** Chromium's Accept for a document. */
const DOCUMENT_ACCEPT =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8';
const DEFAULT_POLICY = 'strict-origin-when-cross-origin';
/** One top-level navigation, as the browser driver's Chromium would make it. */
export interface Navigation {
  /**
   * The page the user acted on: its URL and its Referrer-Policy header (if any). Absent for an
   * address typed or opened from outside a page (Sec-Fetch-Site: none, no Referer).
   */
  from?: { url: string; referrerPolicy?: string | undefined };
  /** The user pressed, clicked or typed it (Sec-Fetch-User: ?1); false for a page's own auto-submit. */
  user: boolean;
  /** The URLs of this navigation before its redirects, oldest first (Sec-Fetch-Site weighs every one). */
  redirectedFrom?: string[];
}

/**
 * What a browser tab knows between requests, for a user agent that sends requests one by one (the
 * form driver): the page last shown and the navigation under way, so each request is sent as the
 * navigation it stands for — the first as an address typed (or, a POST, auto-submitted by the
 * `opener` page: the client's), a redirect as the rest of its navigation, anything else as the
 * user's press on the page last shown.
 */
export class Tab {
  #page: Navigation['from'];
  #last: { url: string; location: string | undefined; navigation: Navigation } | undefined;
  constructor(private readonly opener?: string) {}

  /** The navigation of the next request. */
  next(method: string, url: string): Navigation {
    const last = this.#last;
    if (last?.location === url && method === 'GET')
      return { ...last.navigation, redirectedFrom: [...(last.navigation.redirectedFrom ?? []), last.url] };
    if (this.#page) return { from: this.#page, user: true };
    if (method === 'POST' && this.opener) return { from: { url: this.opener }, user: false };
    return { user: true };
  }

  /** The answer to `navigation` at `url`: a redirect to `location`, or (none) a page with its Referrer-Policy. */
  answered(
    url: string,
    navigation: Navigation,
    location: string | undefined,
    referrerPolicy: string | undefined,
  ): void {
    this.#last = { url, location, navigation };
    if (!location) this.#page = { url, referrerPolicy };
  }
}

/** The headers of a navigation to `url` by `method` (the client adds Host, Cookie, Content-* and the connection). */
export function navigationHeaders(
  method: string,
  url: string,
  nav: Navigation,
  userAgent = BROWSER_USER_AGENT,
): Record<string, string> {
  const headers: Record<string, string> = {
    'upgrade-insecure-requests': '1',
    'user-agent': userAgent,
    accept: DOCUMENT_ACCEPT,
    'sec-fetch-site': fetchSite(url, nav),
    'sec-fetch-mode': 'navigate',
    ...(nav.user ? { 'sec-fetch-user': '?1' } : {}),
    'sec-fetch-dest': 'document',
    'accept-language': 'en-US,en;q=0.9',
  };
  if (!nav.from) return headers;
  const policy = effectiveReferrerPolicy(nav.from.referrerPolicy) ?? DEFAULT_POLICY;
  if (method !== 'GET' && method !== 'HEAD') headers.origin = requestOrigin(nav.from.url, url, policy);
  const referer = referrerFor(nav.from.url, url, policy);
  if (referer) headers.referer = referer;
  return headers;
}

/** Sec-Fetch-Site (Fetch Metadata §2.4): the initiator's origin against every URL of the navigation, redirects too. */
function fetchSite(url: string, nav: Navigation): 'none' | 'same-origin' | 'same-site' | 'cross-site' {
  if (!nav.from) return 'none';
  const initiator = new URL(nav.from.url);
  let site: 'same-origin' | 'same-site' = 'same-origin';
  for (const hop of [...(nav.redirectedFrom ?? []), url]) {
    const u = new URL(hop);
    if (u.origin === initiator.origin) continue;
    if (!sameSite(u, initiator)) return 'cross-site';
    site = 'same-site';
  }
  return site;
}

/** Schemeful same site (HTML "same site"): the same scheme and the same registrable domain (or host, for an IP). */
function sameSite(a: URL, b: URL): boolean {
  return a.protocol === b.protocol && site(a.hostname) === site(b.hostname);
}

function site(host: string): string {
  try {
    return getPublicSuffix(host, { allowSpecialUseDomain: true }) ?? host;
  } catch {
    return host;
  }
}

const downgrade = (from: URL, to: URL) => from.protocol === 'https:' && to.protocol !== 'https:';

/** The Origin header of a form POST (Fetch "serializing a request origin"): "null" where the policy withholds it. */
function requestOrigin(fromUrl: string, url: string, policy: string): string {
  const from = new URL(fromUrl);
  const to = new URL(url);
  if (policy === 'no-referrer') return 'null';
  if (policy === 'same-origin' && from.origin !== to.origin) return 'null';
  if (policy.startsWith('strict-origin') || policy === 'no-referrer-when-downgrade')
    return downgrade(from, to) ? 'null' : from.origin;
  return from.origin;
}

/** The Referer header (W3C Referrer Policy §8.3 "determine request's referrer"), or undefined when withheld. */
function referrerFor(fromUrl: string, url: string, policy: string): string | undefined {
  const from = new URL(fromUrl);
  const to = new URL(url);
  from.username = '';
  from.password = '';
  from.hash = '';
  const full = from.href;
  const origin = `${from.origin}/`;
  const same = from.origin === to.origin;
  switch (policy) {
    case 'no-referrer':
      return undefined;
    case 'unsafe-url':
      return full;
    case 'origin':
      return origin;
    case 'strict-origin':
      return downgrade(from, to) ? undefined : origin;
    case 'same-origin':
      return same ? full : undefined;
    case 'origin-when-cross-origin':
      return same ? full : origin;
    case 'no-referrer-when-downgrade':
      return downgrade(from, to) ? undefined : full;
    default:
      return same ? full : downgrade(from, to) ? undefined : origin;
  }
}
