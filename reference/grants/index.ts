/**
 * The grant registry: the token endpoint dispatches on grant_type through this list.
 * A new grant is one new file exporting a Grant, plus one line here.
 */
import { authorizationCode } from './authorization-code.ts';
import { clientCredentials } from './client-credentials.ts';
import { deviceCode } from './device-code.ts';
import type { Grant } from './grant.ts';
import { refreshToken } from './refresh-token.ts';

export const GRANTS: readonly Grant[] = [authorizationCode, clientCredentials, refreshToken, deviceCode];

export function findGrant(grantType: string): Grant | undefined {
  return GRANTS.find((grant) => grant.grantType === grantType);
}
