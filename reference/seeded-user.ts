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
