import { GRANT, defineScenario } from '../../harness/scenario/scenario.ts';
import { authorizationAnswer, expectOAuthError, expectRefusalIsFor } from '../checks/index.ts';

/**
 * The PKCE downgrade attack (RFC 9700 §4.8): the challenge is stripped from the authorization
 * request, and the victim's client later sends its verifier. Tried with the first-party
 * confidential client, for which the SPEC makes PKCE optional. A target that refuses
 * authorization requests without a challenge (PKCE required for all) cannot be downgraded: a pass.
 */
export default defineScenario({
  id: 'pkce.downgrade',
  title: 'A code_verifier for a code issued without a code_challenge is rejected',
  requirements: {
    rfc9700_2_1_1: {
      spec: 'RFC 9700',
      section: '2.1.1',
      level: 'MUST',
      party: 'server',
      note: 'mitigate PKCE downgrade attacks',
    },
    rfc9700_4_8_2: { spec: 'RFC 9700', section: '4.8.2', level: 'MUST', party: 'server' },
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: {
    roles: ['confidential'],
    user: true,
    capabilities: ['grant:authorization_code', 'endpoint:authorization', 'endpoint:token'],
  },
  catches: ['pkce-downgrade'],
  async run(ctx) {
    const outcome = await ctx.authorize('confidential', {}, { session: 'shared' }); // no code_challenge
    const answer = authorizationAnswer(outcome, 'The authorization request without code_challenge');
    if (answer.kind === 'refused') {
      await expectRefusalIsFor(
        ctx,
        'confidential',
        answer.how,
        'the missing code_challenge (PKCE required; no downgrade possible)',
      );
      return;
    }
    const res = await ctx.http.token(
      ctx.client('confidential'),
      {
        grant_type: GRANT.code,
        code: answer.code,
        redirect_uri: outcome.request.redirect_uri,
        code_verifier: ctx.pkce.create().verifier,
      },
      { label: 'token request with a code_verifier for a code issued without a challenge' },
    );
    // RFC 9700 §4.8.2 says "rejected" without naming the code; either fits RFC 6749 §5.2.
    expectOAuthError(res, ['invalid_grant', 'invalid_request'], {
      when: 'A token request with a code_verifier for a code issued without a code_challenge',
      per: ctx.req.rfc9700_4_8_2,
    });
    await expectRefusalIsFor(
      ctx,
      'confidential',
      `with a code_verifier for a code issued without a challenge got ${res.body.error}`,
      'the downgrade',
      { redeem: true },
    );
  },
});
