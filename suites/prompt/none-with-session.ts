import { defineScenario } from '../../harness/scenario/scenario.ts';
import {
  CODE_FLOW_CAPABILITIES,
  authorizeInSession,
  expectSameSub,
  expectSilentCode,
  idTokenOf,
  redeemOutcome,
  signIn,
} from '../checks/index.ts';

export default defineScenario({
  id: 'prompt.none-with-session',
  title: 'prompt=none with a signed-in session returns a code without any page, for the same user',
  requirements: {
    oidcCore_3_1_2_1: {
      spec: 'OIDC Core',
      section: '3.1.2.1',
      level: 'MUST',
      party: 'server',
      note: 'prompt=none answers from the existing session',
    },
  },
  severity: 'medium',
  appliesTo: 'oidc',
  requires: { roles: ['confidential'], user: true, capabilities: CODE_FLOW_CAPABILITIES },
  catches: ['prompt-none-ignored'],
  async run(ctx) {
    const first = await signIn(ctx, 'confidential');
    const { outcome, verifier } = await authorizeInSession(
      ctx,
      'confidential',
      first.session,
      { prompt: 'none' },
      { interact: false },
    );
    const rule = { when: 'The prompt=none request in the signed-in session', per: ctx.req.oidcCore_3_1_2_1 };
    expectSilentCode(outcome, rule);
    const tokens = await redeemOutcome(ctx, 'confidential', outcome, verifier, 'the prompt=none request');
    expectSameSub(first.claims, idTokenOf(ctx, tokens, 'redeeming the prompt=none code').claims, rule);
  },
});
