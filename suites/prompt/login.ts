import { CheckFailure, defineScenario, describeOutcome } from '../../harness/scenario/scenario.ts';
import {
  CODE_FLOW_CAPABILITIES,
  authorizeInSession,
  expectSameSub,
  idTokenOf,
  nextSecond,
  redeemOutcome,
  signIn,
} from '../checks/index.ts';

export default defineScenario({
  id: 'prompt.login',
  title: 'prompt=login makes a signed-in user log in again, and auth_time moves',
  requirements: {
    oidcCore_3_1_2_1: {
      spec: 'OIDC Core',
      section: '3.1.2.1',
      level: 'MUST',
      party: 'server',
      note: 'prompt=login: reauthenticate, or else return an error such as login_required',
    },
    oidcCore_2: {
      spec: 'OIDC Core',
      section: '2',
      level: 'MUST',
      party: 'server',
      note: 'auth_time is the time of the authentication',
    },
  },
  severity: 'medium',
  appliesTo: 'oidc',
  requires: { roles: ['confidential'], user: true, capabilities: CODE_FLOW_CAPABILITIES },
  catches: ['prompt-login-ignored'],
  async run(ctx) {
    const first = await signIn(ctx, 'confidential');
    await nextSecond();
    const { outcome, verifier } = await authorizeInSession(ctx, 'confidential', first.session, { prompt: 'login' });
    const when = 'The prompt=login request in a signed-in session';
    if (outcome.kind === 'redirect' && outcome.params.error) {
      ctx.evidence.note(
        `${when} ${describeOutcome(outcome)}: the IdP could not reauthenticate and said so, as OIDC Core ` +
          `§3.1.2.1 allows.`,
      );
      return;
    }
    if (!outcome.pages.includes('login')) {
      throw new CheckFailure(
        `${when} ${describeOutcome(outcome)} without showing the login page; OIDC Core §3.1.2.1 requires the user ` +
          `to be reauthenticated (or an error such as login_required).`,
        { requirement: ctx.req.oidcCore_3_1_2_1 },
      );
    }
    const tokens = await redeemOutcome(ctx, 'confidential', outcome, verifier, 'the prompt=login request');
    const { claims } = idTokenOf(ctx, tokens, 'redeeming the prompt=login code');
    expectSameSub(first.claims, claims, { when, per: ctx.req.oidcCore_3_1_2_1 });
    // auth_time is compared where both ID tokens carry it (id-token.auth-time judges its presence).
    const before = first.claims.auth_time;
    const after = claims.auth_time;
    if (typeof before === 'number' && typeof after === 'number' && after <= before) {
      throw new CheckFailure(
        `${when} showed the login page, but the new ID token's auth_time (${after}) is not later than the first ` +
          `login's (${before}); OIDC Core §2 requires auth_time to be the time of the new authentication.`,
        { requirement: ctx.req.oidcCore_2, kind: 'refused-wrongly' },
      );
    }
  },
});
