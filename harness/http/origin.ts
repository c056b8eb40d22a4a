/**
 * Where the harness may send requests and open pages (docs/security.md), in one place: the issuer's
 * origin and the config's `allowedOrigins`; `http:` and `https:` URLs only, and `http:` only when
 * the issuer itself is http. The HTTP client refuses every other request before it is sent (so no
 * client secret, password, code or token leaves the target's origin); the browser blocks every
 * other request and navigation.
 */

export interface OriginPolicyInput {
  issuer: string;
  allowedOrigins?: readonly string[];
  /** Discovery fields by URL, to name an endpoint in a refusal (e.g. token_endpoint). */
  endpoints?: Readonly<Record<string, string>>;
  /**
   * Set when the discovery document must not be used at all (OIDC Discovery §4.3): every request is refused with it.
   */
  unusable?: string;
}

const ALLOW_HINT = 'add it to "allowedOrigins" in the target config if the IdP really spans origins';

export class OriginPolicy {
  readonly issuerOrigin: string;
  readonly #allowed: ReadonlySet<string>;
  readonly #httpAllowed: boolean;
  readonly #names = new Map<string, string>();
  readonly #unusable: string | undefined;

  constructor(input: OriginPolicyInput) {
    const issuer = new URL(input.issuer);
    this.issuerOrigin = issuer.origin;
    this.#httpAllowed = issuer.protocol === 'http:';
    this.#allowed = new Set([issuer.origin, ...(input.allowedOrigins ?? []).map((o) => new URL(o).origin)]);
    for (const [field, url] of Object.entries(input.endpoints ?? {})) this.#names.set(url, field);
    this.#unusable = input.unusable;
  }

  /** Why the harness must not send a request to (or open) `url`, or undefined when it may. */
  problem(url: string, options: { discovery?: boolean } = {}): string | undefined {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return `"${url}" is not an absolute URL`;
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:')
      return `${u.protocol} URLs are never fetched or opened (only http(s))`;
    if (u.protocol === 'http:' && !this.#httpAllowed)
      return `an http: URL for an https issuer (${this.issuerOrigin}); secrets go over https only`;
    if (this.#unusable && !options.discovery) return this.#unusable;
    if (!this.#allowed.has(u.origin)) {
      return (
        `${u.origin} is not the issuer's origin (${this.issuerOrigin}) nor in allowedOrigins; the harness ` +
        `sends nothing off the target's origin (${ALLOW_HINT})`
      );
    }
    return undefined;
  }

  /**
   * The Content-Security-Policy the browser adds to every page of a walk: connections (fetch, XHR, beacons,
   * EventSource, WebSockets) only to the allowed origins. Request interception already holds fetches and beacons to
   * the rule; a WebSocket is not intercepted, so without this a login page's script could send the typed password to
   * any ws: or wss: URL. A CSP source `https://host` also matches `wss://host`, never `ws:`; for an http issuer
   * `http://host` matches both.
   */
  pageCsp(): string {
    return `connect-src ${[...this.#allowed].join(' ')} data: blob:`;
  }

  /** Whether the browser may load `url` (data:, blob: and about: are the page's own, not requests). */
  browserMay(url: string): string | undefined {
    if (/^(data|blob|about):/i.test(url)) return undefined;
    return this.problem(url);
  }

  /** A request, named for a refusal: the discovery field when the URL is an endpoint, else its label. */
  describe(url: string, label?: string): string {
    const field = this.#names.get(url) ?? this.#names.get(url.replace(/[?#].*$/, ''));
    const what = field ? `the ${field}` : label ? `"${label}"` : 'a request';
    return `${what} (${url.replace(/[?#].*$/, '')})`;
  }
}
