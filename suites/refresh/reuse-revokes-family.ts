import { defineScenario } from '../../harness/scenario/scenario.ts';
import { expectOAuthError, refresh, rotateOnce, succeeded, tokensWithRefresh } from '../checks/index.ts';

export default defineScenario({
  id: 'refresh.reuse-revokes-family',
  title:
    'Replaying a rotated-out refresh token revokes every refresh token of its family: the newest, and any the ' +
    'replay itself got',
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
  catches: ['refresh-family-kept', 'refresh-reuse-allowed', 'refresh-replay-mints-valid'],
  async run(ctx) {
    const { tokens } = await tokensWithRefresh(ctx, 'public');
    const newest = await rotateOnce(ctx, 'public', tokens.refresh_token);
    // The replay's own answer is refresh.reuse-rejected's to judge; here it raises the alarm, and whatever refresh
    // token it was answered with belongs to the family too.
    const replay = await refresh(
      ctx,
      'public',
      tokens.refresh_token,
      {},
      'refresh_token as public, replaying the rotated-out token',
    );
    const minted = succeeded(replay) ? replay.body.refresh_token : undefined;
    const held: Array<{ what: string; token: string }> = [{ what: 'the newest token', token: newest.refresh_token }];
    if (typeof minted === 'string' && minted && minted !== newest.refresh_token)
      held.push({ what: 'the token the replay was answered with', token: minted });
    for (const { what, token } of held) {
      await ctx.softly(async () => {
        const res = await refresh(ctx, 'public', token, {}, `refresh_token as public, with ${what} after the replay`);
        expectOAuthError(res, 'invalid_grant', {
          when: `After a rotated-out refresh token was replayed, a refresh with ${what} of the same family`,
          per: ctx.req.rfc9700_4_14_2,
        });
      });
    }
  },
});
