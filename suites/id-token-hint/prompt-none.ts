import { forgeClaimsChanged } from '../../generators/index.ts';
import { CheckFailure, defineScenario, describeOutcome } from '../../harness/scenario/scenario.ts';
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
  id: 'id-token-hint.prompt-none',
  title:
    "prompt=none with the signed-in user's id_token_hint succeeds; a hint naming another user never gets the " +
    "session user's code",
  requirements: {
    oidcCore_3_1_2_1: {
      spec: 'OIDC Core',
      section: '3.1.2.1',
      level: 'MUST',
      party: 'server',
      note: 'the hinted user is signed in: a positive response',
    },
    oidcCore_3_1_2_1_otherwise: {
      spec: 'OIDC Core',
      section: '3.1.2.1',
      level: 'SHOULD',
      party: 'server',
      note: 'otherwise an error such as login_required',
    },
  },
  severity: 'medium',
  appliesTo: 'oidc',
  requires: { roles: ['confidential'], user: true, capabilities: CODE_FLOW_CAPABILITIES },
  catches: ['id-token-hint-ignored', 'prompt-none-ignored'],
  async run(ctx) {
    const first = await signIn(ctx, 'confidential');
    const same = await authorizeInSession(
      ctx,
      'confidential',
      first.session,
      { prompt: 'none', id_token_hint: first.idToken },
      { interact: false },
    );
    const rule = {
      when: "The prompt=none request with the signed-in user's ID token as id_token_hint",
      per: ctx.req.oidcCore_3_1_2_1,
    };
    expectSilentCode(same.outcome, rule);
    const tokens = await redeemOutcome(
      ctx,
      'confidential',
      same.outcome,
      same.verifier,
      'the prompt=none request with id_token_hint',
    );
    expectSameSub(first.claims, idTokenOf(ctx, tokens, 'redeeming the code of the hinted request').claims, rule);

    // Only one user is configured: the other user's hint is the same ID token with another sub
    // (its signature no longer matches). An IdP may refuse it as invalid or as another user's; it
    // must not answer for the session's user, whom the client did not ask for.
    const otherSub = `${String(first.claims.sub)}-someone-else`;
    const forged = forgeClaimsChanged(first.idToken, { sub: otherSub });
    const other = await authorizeInSession(
      ctx,
      'confidential',
      first.session,
      { prompt: 'none', id_token_hint: forged },
      { interact: false },
    );
    await ctx.softly(
      () => {
        if (other.outcome.kind !== 'redirect' || !other.outcome.params.code) {
          ctx.evidence.note(
            `The prompt=none request with a hint naming ` +
              `sub ${JSON.stringify(otherSub)} ${describeOutcome(other.outcome)}.`,
          );
          return;
        }
        throw new CheckFailure(
          `The prompt=none request with an id_token_hint naming another user (sub ${JSON.stringify(otherSub)}, ` +
            `signature not matching) redirected with a code, silently answering for the session's ` +
            `user ${JSON.stringify(first.claims.sub)}; OIDC Core §3.1.2.1 says the OP SHOULD return an error such ` +
            `as login_required when the hinted user is not the one signed in.`,
          { requirement: ctx.req.oidcCore_3_1_2_1_otherwise },
        );
      },
      { requirement: ctx.req.oidcCore_3_1_2_1_otherwise },
    );
  },
});
