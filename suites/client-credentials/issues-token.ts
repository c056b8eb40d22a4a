import { GRANT, defineScenario } from '../../harness/scenario/scenario.ts';
import { expectBearer, expectTokenResponse } from '../checks/index.ts';

export default defineScenario({
  id: 'client-credentials.issues-token',
  title: 'The client_credentials grant returns a Bearer access token',
  requirements: { rfc6749_4_4: { spec: 'RFC 6749', section: '4.4', level: 'MUST', party: 'server' } },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: { roles: ['machine'], capabilities: ['grant:client_credentials', 'endpoint:token'] },
  async run(ctx) {
    const client = ctx.client('machine');
    const res = await ctx.http.token(client, { grant_type: GRANT.clientCredentials, scope: client.scope || undefined });
    const tokens = expectTokenResponse(res, { when: 'A client_credentials request', per: ctx.req.rfc6749_4_4 });
    expectBearer(tokens, { when: 'The client_credentials grant', per: ctx.req.rfc6749_4_4 });
  },
});
