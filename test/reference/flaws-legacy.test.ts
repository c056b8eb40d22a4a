/** The planted flaws of the deprecated grants (docs/catalog.md): each changes its behaviour and nothing else. */
import { describe } from 'vitest';
import { LEGACY_CLIENT, SEEDED_USER } from '../../reference/index.ts';
import { flawTests } from './flaw-matrix.ts';

describe('planted flaws of the legacy grants', () => {
  flawTests([
    {
      flaw: 'password-issues-refresh',
      probe: async (idp) => {
        const result = await idp.token(
          { grant_type: 'password', username: SEEDED_USER.username, password: SEEDED_USER.password, scope: 'openid' },
          { client: LEGACY_CLIENT },
        );
        return [result.status, 'refresh_token' in result.body];
      },
      clean: [200, false],
      flawed: [200, true],
    },
    {
      flaw: 'implicit-issues-refresh',
      probe: async (idp) => {
        const { params } = await idp.authorize({
          client: LEGACY_CLIENT,
          query: { response_type: 'id_token token', scope: 'openid', nonce: 'n-1' },
        });
        return [params.has('access_token'), params.has('refresh_token')];
      },
      clean: [true, false],
      flawed: [true, true],
    },
  ]);
});
