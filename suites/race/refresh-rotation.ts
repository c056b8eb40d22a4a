import { GRANT, PreconditionError, defineScenario } from '../../harness/scenario/scenario.ts';
import {
  RACE_ROUNDS,
  RACE_WIDTH,
  expectControl,
  raceRounds,
  refreshWorks,
  tokensAskingRefresh,
} from '../checks/index.ts';

export default defineScenario({
  id: 'race.refresh-rotation',
  title: 'Of N parallel refreshes with one refresh token, at most one succeeds, in every one of several rounds',
  requirements: {
    specStatesAndTransitions: {
      spec: 'SPEC',
      section: 'States and transitions',
      level: 'MUST',
      party: 'server',
      note: 'refresh token: active → revoked on use',
    },
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: {
    roles: ['confidential'],
    user: true,
    capabilities: ['grant:authorization_code', 'grant:refresh_token', 'endpoint:token'],
  },
  catches: ['race-refresh', 'race-refresh-intermittent', 'refresh-not-rotated', 'refresh-reuse-allowed'],
  // Timing-sensitive: run alone, so other scenarios' traffic cannot spread the requests apart.
  exclusive: true,
  async run(ctx) {
    const client = ctx.client('confidential');
    // The client's own scope, with offline_access (and prompt=consent, OIDC Core §11) only where the target
    // advertises it: an IdP that does not know offline_access may refuse the whole request (invalid_scope).
    const offline = () => tokensAskingRefresh(ctx, 'confidential');
    // Several rounds, a refresh token each: a check-then-act window does not open in every burst.
    const empty = await raceRounds(
      ctx,
      async (round) => {
        const { tokens, scope } = await offline();
        // No premise, no verdict: issuing refresh tokens is the server's choice (RFC 6749 §1.5).
        if (!tokens.refresh_token)
          ctx.skip(`the code flow with scope "${scope.join(' ')}" returned no refresh_token to race with`);
        return ctx.http.tokenAtOnce(
          client,
          { grant_type: GRANT.refresh, refresh_token: tokens.refresh_token },
          RACE_WIDTH,
          { label: `refresh with one token (round ${round} of ${RACE_ROUNDS})` },
        );
      },
      (round) => ({
        when: `In round ${round} of ${RACE_ROUNDS}, ${RACE_WIDTH} refreshes with one refresh token sent at once`,
        per: ctx.req.specStatesAndTransitions,
      }),
    );
    // A round without a winner: a pass only if a refresh token used alone refreshes (the control).
    if (empty.length > 0)
      await expectControl(
        `none of the ${RACE_WIDTH} refreshes with one refresh token sent at once got tokens in round ` +
          `${empty.join(', ')} of ${RACE_ROUNDS}`,
        'a single refresh with a fresh refresh token',
        async () => {
          const fresh = (await offline()).tokens.refresh_token;
          if (!fresh) throw new PreconditionError('the code flow returned no refresh_token this time');
          await refreshWorks(ctx, 'confidential', fresh);
        },
      );
  },
});
