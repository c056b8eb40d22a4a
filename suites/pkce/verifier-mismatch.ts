import { GRANT, defineScenario } from '../../harness/scenario/scenario.ts';
import { expectOAuthError, expectRefusalIsFor } from '../checks/index.ts';

export default defineScenario({
  id: 'pkce.verifier-mismatch',
  title: 'A token request with a code_verifier that does not match the code_challenge gets invalid_grant',
  requirements: { rfc7636_4_6: { spec: 'RFC 7636', section: '4.6', level: 'MUST', party: 'server' } },
  severity: 'critical',
  appliesTo: 'oauth2',
  requires: { roles: ['confidential'], user: true, capabilities: ['grant:authorization_code', 'endpoint:token'] },
  catches: ['pkce-verifier-ignored'],
  async run(ctx) {
    const { code, request } = await ctx.flows.code('confidential'); // sent with a fresh S256 challenge
    const res = await ctx.http.token(
      ctx.client('confidential'),
      {
        grant_type: GRANT.code,
        code,
        redirect_uri: request.redirect_uri,
        code_verifier: ctx.pkce.create().verifier, // valid format, wrong value
      },
      { label: 'token request with a wrong code_verifier' },
    );
    expectOAuthError(res, 'invalid_grant', {
      when: 'A token request with a code_verifier that does not match the code_challenge',
      per: ctx.req.rfc7636_4_6,
    });
    await expectRefusalIsFor(ctx, 'confidential', 'with a wrong code_verifier got invalid_grant', 'the verifier', {
      redeem: true,
    });
  },
});
