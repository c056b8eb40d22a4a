import { GRANT, defineScenario } from '../../harness/scenario/scenario.ts';
import {
  expectControl,
  expectOAuthError,
  expectStatus,
  revocationRequest,
  refreshWorks,
  tokensWithRefreshToken,
} from '../checks/index.ts';

export default defineScenario({
  id: 'revocation.refresh-token',
  title: 'A revoked refresh token can no longer be used',
  requirements: {
    rfc7009_2_1: { spec: 'RFC 7009', section: '2.1', level: 'MUST', party: 'server' },
    rfc7009_2_2: {
      spec: 'RFC 7009',
      section: '2.2',
      level: 'MUST',
      party: 'server',
      note: 'HTTP 200 for a revoked token',
    },
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: {
    roles: ['confidential'],
    user: true,
    capabilities: [
      'grant:authorization_code',
      'grant:refresh_token',
      'endpoint:authorization',
      'endpoint:token',
      'endpoint:revocation',
    ],
  },
  catches: ['revocation-noop'],
  async run(ctx) {
    const client = ctx.client('confidential');
    const { tokens } = await tokensWithRefreshToken(ctx, 'confidential');
    const revoked = await revocationRequest(ctx, 'confidential', tokens.refresh_token, 'refresh_token');
    expectStatus(revoked, 200, { when: 'Revoking a refresh token of the client', per: ctx.req.rfc7009_2_2 });

    const res = await ctx.http.token(
      client,
      { grant_type: GRANT.refresh, refresh_token: tokens.refresh_token },
      { label: 'refresh with the revoked refresh token' },
    );
    expectOAuthError(res, 'invalid_grant', {
      when: 'A refresh request with a refresh token the revocation endpoint had just revoked (with HTTP 200)',
      per: ctx.req.rfc7009_2_1,
    });
    await expectControl(
      'the revoked refresh token got invalid_grant',
      'a refresh with a refresh token not revoked',
      async () => {
        const fresh = await tokensWithRefreshToken(ctx, 'confidential');
        await refreshWorks(ctx, 'confidential', fresh.tokens.refresh_token);
      },
    );
  },
});
