/**
 * Clickjacking protection of a page (RFC 9700 §4.16): X-Frame-Options DENY or SAMEORIGIN
 * (RFC 7034), or a Content-Security-Policy frame-ancestors directive that names no wildcard. A
 * frame-ancestors directive takes precedence over X-Frame-Options in browsers (CSP Level 2 §7.7.1),
 * so a permissive one is a failure even next to X-Frame-Options. Pure: works on any page's headers,
 * fetched over HTTP or seen by a browser.
 */
import { CheckFailure } from '../../harness/scenario/scenario.ts';
import type { Rule } from './oauth.ts';

export interface FramingVerdict {
  forbidden: boolean;
  /** What decided it, e.g. `X-Frame-Options: DENY` or `no X-Frame-Options and no CSP frame-ancestors`. */
  because: string;
}

/** Sources that let any site frame the page: `*` and bare schemes such as `https:`. */
const ANY_SITE = /^(\*|[a-z][a-z0-9+.-]*:)$/i;

/** The frame-ancestors directives of every enforced policy (multiple headers arrive joined with ", "). */
function frameAncestors(csp: string | undefined): string[][] {
  if (!csp) return [];
  const found: string[][] = [];
  for (const policy of csp.split(',')) {
    for (const directive of policy.split(';')) {
      const [name, ...sources] = directive.trim().split(/\s+/);
      if (name?.toLowerCase() === 'frame-ancestors') found.push(sources);
    }
  }
  return found;
}

/** Response headers: a fetch Headers, or a record with lower-case names (a login driver's page visit). */
export type PageHeaders = Headers | Record<string, string>;

const header = (headers: PageHeaders, name: string): string | undefined =>
  headers instanceof Headers ? (headers.get(name) ?? undefined) : headers[name];

/** Whether the headers forbid framing by other sites. */
export function framingVerdict(headers: PageHeaders): FramingVerdict {
  const directives = frameAncestors(header(headers, 'content-security-policy'));
  if (directives.length) {
    // Every policy is enforced: one restrictive frame-ancestors suffices (an empty list is 'none').
    const restrictive = directives.find((sources) => !sources.some((s) => ANY_SITE.test(s)));
    const shown = (sources: string[]) =>
      `Content-Security-Policy frame-ancestors ${sources.join(' ') || "(empty, as 'none')"}`;
    return restrictive
      ? { forbidden: true, because: shown(restrictive) }
      : {
          forbidden: false,
          because: `${shown(directives[0]!)}, which lets any site frame it (and overrides X-Frame-Options)`,
        };
  }
  const xfo = header(headers, 'x-frame-options')?.trim();
  if (xfo?.split(',').every((v) => /^(deny|sameorigin)$/i.test(v.trim())))
    return { forbidden: true, because: `X-Frame-Options: ${xfo}` };
  if (xfo)
    return {
      forbidden: false,
      because:
        `X-Frame-Options: ${xfo}, which browsers do not enforce (only DENY and SAMEORIGIN), and no CSP ` +
        `frame-ancestors`,
    };
  return { forbidden: false, because: 'no X-Frame-Options and no CSP frame-ancestors' };
}

/** A page forbids framing; `page` names it in the failure sentence ("The login page at …"). */
export function expectFramingForbidden(
  page: { name: string; url: string; headers: PageHeaders },
  rule: Pick<Rule, 'per'>,
): string {
  const verdict = framingVerdict(page.headers);
  if (!verdict.forbidden) {
    throw new CheckFailure(
      `The ${page.name} at ${page.url} was served with ${verdict.because}; ${rule.per.label} requires the ` +
        `authorization server to prevent clickjacking (X-Frame-Options DENY or SAMEORIGIN, or CSP frame-ancestors).`,
      { requirement: rule.per, kind: 'accepted' },
    );
  }
  return verdict.because;
}
