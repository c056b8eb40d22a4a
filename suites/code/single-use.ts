import { GRANT, defineScenario } from '../../harness/scenario/scenario.ts';
import { expectOAuthError } from '../checks/index.ts';

export default defineScenario({
  id: 'code.single-use',
  title: 'A second redemption of an authorization code gets invalid_grant',
  requirements: {
    rfc6749_4_1_2: {
      spec: 'RFC 6749',
      section: '4.1.2',
      level: 'MUST',
      party: 'server',
      note: 'a code used more than once is denied',
    },
    rfc9700_4_2_4: {
      spec: 'RFC 9700',
      section: '4.2.4',
      level: 'MUST',
      party: 'server',
      note: 'codes are invalidated after their first use',
    },
    rfc6749_5_2: { spec: 'RFC 6749', section: '5.2', level: 'MUST', party: 'server', note: 'invalid_grant' },
  },
  severity: 'critical',
  appliesTo: 'oauth2',
  requires: { roles: ['confidential'], user: true, capabilities: ['grant:authorization_code', 'endpoint:token'] },
  catches: ['code-reuse-allowed'],
  async run(ctx) {
    // Its own sign-in: replaying a code may revoke the whole grant it came from (RFC 6749 §4.1.2;
    // oidc-provider does), and on the run's shared session that grant would be every other scenario's too.
    const { code, request, pkce } = await ctx.flows.tokens('confidential', { session: 'fresh' }); // redeemed once
    const res = await ctx.http.token(
      ctx.client('confidential'),
      {
        grant_type: GRANT.code,
        code,
        redirect_uri: request.redirect_uri,
        code_verifier: pkce?.verifier,
      },
      { label: 'second redemption of the same code' },
    );
    expectOAuthError(res, 'invalid_grant', {
      when: 'A second redemption of an authorization code that was already redeemed',
      per: ctx.req.rfc6749_4_1_2,
    });
  },
});
