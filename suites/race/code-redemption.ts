import { GRANT, defineScenario } from '../../harness/scenario/scenario.ts';
import { RACE_ROUNDS, RACE_WIDTH, expectRefusalIsFor, raceRounds } from '../checks/index.ts';

export default defineScenario({
  id: 'race.code-redemption',
  title: 'Of N parallel redemptions of one authorization code, at most one succeeds, in every one of several rounds',
  requirements: {
    rfc6749_4_1_2: {
      spec: 'RFC 6749',
      section: '4.1.2',
      level: 'MUST',
      party: 'server',
      note: 'the server MUST deny a code used more than once',
    },
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: { roles: ['confidential'], user: true, capabilities: ['grant:authorization_code', 'endpoint:token'] },
  catches: ['race-code', 'race-code-intermittent', 'code-reuse-allowed'],
  // Timing-sensitive: run alone, so other scenarios' traffic cannot spread the requests apart.
  exclusive: true,
  async run(ctx) {
    // Several rounds: a check-then-act window does not open in every burst, so one burst that had one winner proves
    // little. Each round is its own code; every round must have at most one winner.
    const empty = await raceRounds(
      ctx,
      async (round) => {
        // Its own sign-in: redeeming a code several times may revoke the whole grant it came from (RFC 6749 §4.1.2;
        // oidc-provider does), and on the run's shared session that grant would be every other scenario's too.
        const { code, pkce, request } = await ctx.flows.code('confidential', { session: 'fresh' });
        return ctx.http.tokenAtOnce(
          ctx.client('confidential'),
          {
            grant_type: GRANT.code,
            code,
            redirect_uri: request.redirect_uri,
            code_verifier: pkce?.verifier,
          },
          RACE_WIDTH,
          { label: `redemption of one code (round ${round} of ${RACE_ROUNDS})` },
        );
      },
      (round) => ({
        when: `In round ${round} of ${RACE_ROUNDS}, ${RACE_WIDTH} redemptions of one authorization code sent at once`,
        per: ctx.req.rfc6749_4_1_2,
      }),
    );
    // A round without a winner: a pass only if a code redeemed alone gets tokens (the control).
    if (empty.length > 0)
      await expectRefusalIsFor(
        ctx,
        'confidential',
        `redeemed ${RACE_WIDTH} times at once got no tokens in round ${empty.join(', ')} of ${RACE_ROUNDS}`,
        'the race',
        { redeem: true },
      );
  },
});
