import { CheckFailure, defineScenario, describeOutcome } from '../../harness/scenario/scenario.ts';
import {
  CODE_FLOW_CAPABILITIES,
  authorizeInSession,
  expectAuthTime,
  idTokenOf,
  nextSecond,
  redeemOutcome,
  signIn,
} from '../checks/index.ts';

export default defineScenario({
  id: 'max-age.reauthenticates',
  title: 'max_age smaller than the age of the session makes the user log in again',
  requirements: {
    oidcCore_3_1_2_1: {
      spec: 'OIDC Core',
      section: '3.1.2.1',
      level: 'MUST',
      party: 'server',
      note: 'max_age: the OP MUST attempt to actively re-authenticate',
    },
    oidcCore_2: {
      spec: 'OIDC Core',
      section: '2',
      level: 'MUST',
      party: 'server',
      note: 'auth_time REQUIRED with max_age',
    },
  },
  severity: 'medium',
  appliesTo: 'oidc',
  requires: { roles: ['confidential'], user: true, capabilities: CODE_FLOW_CAPABILITIES },
  catches: ['max-age-ignored', 'auth-time-missing'],
  async run(ctx) {
    const first = await signIn(ctx, 'confidential');
    // Two whole seconds later the session is older than max_age=1 on any clock.
    await nextSecond(2);
    const { outcome, verifier } = await authorizeInSession(ctx, 'confidential', first.session, { max_age: '1' });
    const when = 'The max_age=1 request in a session signed in two seconds earlier';
    if (outcome.kind === 'redirect' && outcome.params.error) {
      throw new CheckFailure(
        `${when} ${describeOutcome(outcome)}; OIDC Core §3.1.2.1 requires the OP to re-authenticate the user, ` +
          `not to refuse.`,
        { requirement: ctx.req.oidcCore_3_1_2_1, kind: 'refused-wrongly' },
      );
    }
    if (!outcome.pages.includes('login')) {
      throw new CheckFailure(
        `${when} ${describeOutcome(outcome)} without showing the login page; OIDC Core §3.1.2.1 requires the OP to ` +
          `actively re-authenticate the user.`,
        { requirement: ctx.req.oidcCore_3_1_2_1 },
      );
    }
    const tokens = await redeemOutcome(ctx, 'confidential', outcome, verifier, 'the max_age=1 request');
    const after = expectAuthTime(idTokenOf(ctx, tokens, 'redeeming the max_age=1 code').claims, {
      when,
      per: ctx.req.oidcCore_2,
    });
    const before = typeof first.claims.auth_time === 'number' ? first.claims.auth_time : undefined;
    if (before !== undefined && after <= before) {
      throw new CheckFailure(
        `${when} showed the login page, but auth_time (${after}) is not later than the first login's (${before}); ` +
          `OIDC Core §2 requires the time of the new authentication.`,
        { requirement: ctx.req.oidcCore_2, kind: 'refused-wrongly' },
      );
    }
  },
});
