import { GRANT, defineScenario } from '../../harness/scenario/scenario.ts';
import { expectOAuthError, expectRefusalIsFor } from '../checks/index.ts';

export default defineScenario({
  id: 'pkce.verifier-missing',
  title: 'A token request without code_verifier, for a code issued with a code_challenge, is rejected',
  requirements: {
    rfc9700_2_1_1: {
      spec: 'RFC 9700',
      section: '2.1.1',
      level: 'MUST',
      party: 'server',
      note: 'enforce the code_verifier once a challenge was sent',
    },
    rfc7636_4_6: { spec: 'RFC 7636', section: '4.6', level: 'MUST', party: 'server' },
  },
  severity: 'critical',
  appliesTo: 'oauth2',
  requires: { roles: ['confidential'], user: true, capabilities: ['grant:authorization_code', 'endpoint:token'] },
  catches: ['pkce-verifier-optional'],
  async run(ctx) {
    const { code, request } = await ctx.flows.code('confidential'); // sent with a fresh S256 challenge
    const res = await ctx.http.token(
      ctx.client('confidential'),
      {
        grant_type: GRANT.code,
        code,
        redirect_uri: request.redirect_uri,
      },
      { label: 'token request without code_verifier' },
    );
    // A missing parameter (invalid_request) or a grant that does not verify (invalid_grant): RFC 6749 §5.2 fits either.
    expectOAuthError(res, ['invalid_grant', 'invalid_request'], {
      when: 'A token request without code_verifier for a code issued with a code_challenge',
      per: ctx.req.rfc9700_2_1_1,
    });
    await expectRefusalIsFor(
      ctx,
      'confidential',
      `without code_verifier got ${res.body.error}`,
      'the missing verifier',
      {
        redeem: true,
      },
    );
  },
});
