/** Report order: the order a reader meets the protocol in (docs/catalog.md). Unlisted areas come last. */
export const AREA_ORDER = [
  'discovery',
  'jwks',
  'code',
  'authorize',
  'prompt',
  'max-age',
  'step-up',
  'id-token-hint',
  'request-object',
  'claims',
  'pkce',
  'redirect',
  'refresh',
  'client-credentials',
  'client-auth',
  'scope',
  'id-token',
  'jwt',
  'access-token',
  'device',
  'token-exchange',
  'implicit',
  'hybrid',
  'form-post',
  'jarm',
  'password',
  'token',
  'userinfo',
  'logout',
  'revocation',
  'introspection',
  'tokens',
  'consent',
  'par',
  'fapi2',
  'registration',
  'dpop',
  'mixup',
  'resource',
  'prm',
  'mcp',
  'cimd',
  'entropy',
  'headers',
  'race',
  'browser',
] as const;

/** Folders under suites/ that hold no scenarios. */
export const NOT_AREAS: ReadonlySet<string> = new Set(['checks']);

const AREAS: readonly string[] = AREA_ORDER;
const rank = (area: string) => {
  const i = AREAS.indexOf(area);
  return i === -1 ? AREAS.length : i;
};
const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Report order of two scenario files (`area/name`): by area as AREA_ORDER lists them (unlisted areas last, by name),
 * then by name. Plain code-unit comparison, the same in every locale.
 */
export function byReportOrder(a: string, b: string): number {
  const [areaA = '', nameA = ''] = a.split('/');
  const [areaB = '', nameB = ''] = b.split('/');
  return rank(areaA) - rank(areaB) || byCodeUnits(areaA, areaB) || byCodeUnits(nameA, nameB);
}
