/** The resource owner's credentials, checked for the login page and the password grant. */
import type { ServerContext } from './context.ts';
import { safeEqual } from './safe-equal.ts';
import type { UserConfig } from './options.ts';
import { randomToken } from './tokens.ts';

/**
 * The user with this username and password, or undefined. The password is compared in constant
 * time even for an unknown username, so that timing does not reveal which usernames exist.
 */
export function authenticateUser(
  server: Pick<ServerContext, 'findUser'>,
  username: string | undefined,
  password: string | undefined,
): UserConfig | undefined {
  const user = server.findUser(username ?? '');
  const passwordOk = safeEqual(password ?? '', user?.password ?? randomToken());
  return user && passwordOk ? user : undefined;
}
