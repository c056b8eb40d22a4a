import { defineScenario } from '../../harness/scenario.ts';
import { expectOAuthError, refresh, rotateOnce, tokensWithRefresh } from '../checks/index.ts';

export default defineScenario({
  id: 'refresh.reuse-revokes-family',
  title: 'Replaying a rotated-out refresh token also revokes the newest refresh token of its family',
  requirements: {
    // Refresh token rotation as RFC 9700 §4.14.2 describes it, required of public clients (§2.2.2).
    rfc9700_4_14_2: {
      spec: 'RFC 9700',
      section: '4.14.2',
      level: 'MUST',
      party: 'server',
      roles: ['public'],
      note: 'public clients: rotation revokes the active token on a replay',
    },
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: {
    roles: ['public'],
    user: true,
    capabilities: ['grant:authorization_code', 'grant:refresh_token', 'endpoint:token'],
  },
  catches: ['refresh-family-kept', 'refresh-reuse-allowed'],
  async run(ctx) {
    const { tokens } = await tokensWithRefresh(ctx, 'public');
    const newest = await rotateOnce(ctx, 'public', tokens.refresh_token);
    // The replay's own answer is refresh.reuse-rejected's to judge; here it only raises the alarm.
    await refresh(ctx, 'public', tokens.refresh_token, {}, 'refresh_token as public, replaying the rotated-out token');
    const res = await refresh(
      ctx,
      'public',
      newest.refresh_token,
      {},
      'refresh_token as public, with the newest token after the replay',
    );
    expectOAuthError(res, 'invalid_grant', {
      when: 'After a rotated-out refresh token was replayed, a refresh with the newest token of the same family',
      per: ctx.req.rfc9700_4_14_2,
    });
  },
});
