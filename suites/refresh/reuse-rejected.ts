import { defineScenario } from '../../harness/scenario/scenario.ts';
import { expectOAuthError, refresh, rotateOnce, tokensWithRefresh } from '../checks/index.ts';

export default defineScenario({
  id: 'refresh.reuse-rejected',
  title: 'A refresh token that has been rotated out is rejected with invalid_grant',
  requirements: {
    specStatesAndTransitions: {
      spec: 'SPEC',
      section: 'States and transitions',
      level: 'MUST',
      party: 'server',
      note: 'refresh token: revoked → rejected',
    },
    specErrors: { spec: 'SPEC', section: 'Errors', level: 'MUST', party: 'server', note: 'rule 1' },
    // With rotation (RFC 9700's choice for public clients) a used refresh token is invalidated.
    rfc9700_4_14_2: {
      spec: 'RFC 9700',
      section: '4.14.2',
      level: 'MUST',
      party: 'server',
      roles: ['public'],
      note: 'public clients',
    },
  },
  severity: 'critical',
  appliesTo: 'oauth2',
  requires: {
    roles: ['public'],
    user: true,
    capabilities: ['grant:authorization_code', 'grant:refresh_token', 'endpoint:token'],
  },
  catches: ['refresh-reuse-allowed', 'refresh-replay-mints-valid'],
  async run(ctx) {
    const { tokens } = await tokensWithRefresh(ctx, 'public');
    await rotateOnce(ctx, 'public', tokens.refresh_token);
    const replay = await refresh(
      ctx,
      'public',
      tokens.refresh_token,
      {},
      'refresh_token as public, replaying the rotated-out token',
    );
    expectOAuthError(replay, 'invalid_grant', {
      when: 'Replaying a refresh token that a refresh had already rotated out',
      per: ctx.applies(ctx.req.rfc9700_4_14_2) ? ctx.req.rfc9700_4_14_2 : ctx.req.specStatesAndTransitions,
    });
  },
});
