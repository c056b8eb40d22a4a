/** Conditions on the deprecated grants: implicit (RFC 9700 §2.1.2) and password (RFC 9700 §2.4). */
import { CheckFailure, GRANT, type Target } from '../../harness/scenario/scenario.ts';
import type { Rule } from './oauth.ts';

/**
 * The response types in discovery that issue an access token from the authorization endpoint
 * (`token`, `id_token token`, `code token`, …): the implicit grant and its hybrid relatives.
 */
export function tokenResponseTypes(target: Target): string[] {
  const types = target.discovery?.response_types_supported;
  if (!Array.isArray(types)) return [];
  return types.filter((t): t is string => typeof t === 'string' && t.split(' ').includes('token'));
}

/** What in discovery offers the implicit grant; grant_types_supported counts only when given (not its default). */
export function implicitOffers(target: Target): string[] {
  const offers = tokenResponseTypes(target).map((t) => `response_types_supported has "${t}"`);
  const grants = target.discovery?.grant_types_supported;
  if (Array.isArray(grants) && grants.includes(GRANT.implicit)) offers.push('grant_types_supported has "implicit"');
  return offers;
}

/** Discovery does not offer `grant` in grant_types_supported. */
export function expectGrantNotOffered(target: Target, grant: string, rule: Rule & { why: string }): void {
  if (target.supports(`grant:${grant}`)) {
    throw new CheckFailure(
      `${rule.when} offers the ${grant} grant (grant_types_supported has "${grant}"); ${rule.per.label} ${rule.why}.`,
      { requirement: rule.per, kind: 'accepted' },
    );
  }
}
