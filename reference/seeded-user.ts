/**
 * The seeded user: the one account the reference has unless the options give another (username,
 * password, subject and the standard claims its scopes release).
 */
import type { UserConfig } from './options.ts';

/** The user the reference seeds (`user` in the options replaces it). */
export const SEEDED_USER: UserConfig = {
  username: 'alice',
  password: 'alice-wonderland-42',
  sub: 'user-0001-alice',
  claims: {
    name: 'Alice Liddell',
    family_name: 'Liddell',
    picture: 'https://idp.example.test/avatars/alice.png',
    email: 'alice@example.test',
    email_verified: true,
    address: { formatted: '1 Rabbit Hole Lane, Oxford, UK' },
    phone_number: '+44 1865 000000',
  },
};

/** The most test users `serve --users` and `run --users` seed. */
export const MAX_TEST_USERS = 16;

/**
 * The seeded user and n − 1 more like her (alice-2, alice-3 …: the same claims, another subject and password), for a
 * harness that runs scenarios as several users at once (the target config's `users`).
 */
export function testUsers(n: number): UserConfig[] {
  if (!Number.isInteger(n) || n < 1 || n > MAX_TEST_USERS)
    throw new RangeError(`the number of test users must be a whole number from 1 to ${MAX_TEST_USERS}, not ${n}`);
  return [
    SEEDED_USER,
    ...Array.from({ length: n - 1 }, (_, i): UserConfig => {
      const k = i + 2;
      return {
        ...SEEDED_USER,
        username: `alice-${k}`,
        password: `${SEEDED_USER.password}-${k}`,
        sub: `user-${String(k).padStart(4, '0')}-alice`,
      };
    }),
  ];
}
