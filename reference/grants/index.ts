/**
 * The grant registry: the token endpoint dispatches on grant_type through this list.
 * A new grant is one new file exporting a Grant, plus one line here.
 */
import { authorizationCode } from './authorization-code.ts';
import { clientCredentials } from './client-credentials.ts';
import { deviceCode } from './device-code.ts';
import type { Grant } from './grant.ts';
import { password } from './password.ts';
import { refreshToken } from './refresh-token.ts';
import { tokenExchange } from './token-exchange.ts';

export const GRANTS: readonly Grant[] = [
  authorizationCode,
  clientCredentials,
  refreshToken,
  deviceCode,
  tokenExchange,
  password,
];

export function findGrant(grantType: string): Grant | undefined {
  return GRANTS.find((grant) => grant.grantType === grantType);
}
