import { GRANT, defineScenario } from '../../harness/scenario/scenario.ts';
import { expectNoField, expectTokenResponse } from '../checks/index.ts';

export default defineScenario({
  id: 'client-credentials.no-refresh-token',
  title: 'The client_credentials grant returns no refresh token',
  requirements: {
    specTokenEndpoint: { spec: 'SPEC', section: 'Token endpoint', level: 'MUST', party: 'server', note: 'rule 1' },
    rfc6749_4_4_3: {
      spec: 'RFC 6749',
      section: '4.4.3',
      level: 'SHOULD',
      party: 'server',
      note: 'a refresh token SHOULD NOT be included',
    },
  },
  severity: 'medium',
  appliesTo: 'oauth2',
  requires: { roles: ['machine'], capabilities: ['grant:client_credentials', 'endpoint:token'] },
  catches: ['cc-issues-refresh'],
  async run(ctx) {
    const client = ctx.client('machine');
    const res = await ctx.http.token(client, { grant_type: GRANT.clientCredentials, scope: client.scope || undefined });
    const tokens = expectTokenResponse(res, { when: 'A client_credentials request', per: ctx.req.rfc6749_4_4_3 });
    // The SPEC makes it a MUST (failed); RFC 6749 alone a SHOULD (warning).
    expectNoField(tokens, 'refresh_token', {
      when: 'The client_credentials grant',
      per: ctx.applies(ctx.req.specTokenEndpoint) ? ctx.req.specTokenEndpoint : ctx.req.rfc6749_4_4_3,
    });
  },
});
