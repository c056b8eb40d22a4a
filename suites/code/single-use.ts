import { GRANT, defineScenario } from '../../harness/scenario.ts';
import { expectOAuthError } from '../checks/index.ts';

export default defineScenario({
  id: 'code.single-use',
  title: 'A second redemption of an authorization code gets invalid_grant',
  requirements: [
    { spec: 'RFC 6749', section: '4.1.2', level: 'MUST', note: 'a code used more than once is denied' },
    { spec: 'RFC 9700', section: '4.2.4', level: 'MUST', note: 'codes are invalidated after their first use' },
    { spec: 'RFC 6749', section: '5.2', level: 'MUST', note: 'invalid_grant' },
  ],
  severity: 'critical',
  requires: { roles: ['confidential'], user: true, capabilities: ['grant:authorization_code', 'endpoint:token'] },
  catches: ['code-reuse-allowed'],
  async run(ctx) {
    const { code, request, pkce } = await ctx.flows.tokens('confidential'); // the first redemption succeeded
    const res = await ctx.http.token(ctx.client('confidential'), {
      grant_type: GRANT.code, code, redirect_uri: request.redirect_uri, code_verifier: pkce?.verifier,
    }, { label: 'second redemption of the same code' });
    expectOAuthError(res, 'invalid_grant', {
      when: 'A second redemption of an authorization code that was already redeemed', per: 'RFC 6749 §4.1.2',
    });
  },
});
