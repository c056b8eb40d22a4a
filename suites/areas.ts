/** Report order: the order a reader meets the protocol in (DESIGN §7). Unlisted areas come last. */
export const AREA_ORDER = [
  'discovery', 'jwks', 'code', 'authorize', 'prompt', 'max-age', 'id-token-hint', 'request-object', 'claims',
  'pkce', 'redirect', 'refresh', 'client-credentials', 'client-auth',
  'scope', 'id-token', 'jwt', 'device', 'token-exchange', 'implicit', 'password', 'token', 'userinfo', 'logout',
  'revocation', 'introspection', 'tokens', 'consent', 'par', 'dpop', 'mixup', 'resource', 'entropy', 'headers', 'race', 'browser',
] as const;

/** Folders under suites/ that hold no scenarios. */
export const NOT_AREAS: ReadonlySet<string> = new Set(['checks']);
