/**
 * The grant registry: the token endpoint dispatches on grant_type through this list.
 * A new grant is one new file exporting a Grant, plus one line here.
 */
import { clientCredentials } from './client-credentials.ts';
import type { Grant } from './grant.ts';

export const GRANTS: readonly Grant[] = [clientCredentials];

export function findGrant(grantType: string): Grant | undefined {
  return GRANTS.find((grant) => grant.grantType === grantType);
}
