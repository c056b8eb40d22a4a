import { GRANT, defineScenario } from '../../harness/scenario.ts';
import { expectHeader, expectTokenResponse } from '../checks/index.ts';

export default defineScenario({
  id: 'token.no-store',
  title: 'Token responses carry Cache-Control: no-store',
  requirements: {
    rfc6749_5_1: { spec: 'RFC 6749', section: '5.1', level: 'MUST', party: 'server', note: 'Cache-Control: no-store' },
  },
  severity: 'medium',
  appliesTo: 'oauth2',
  requires: { roles: ['machine'], capabilities: ['grant:client_credentials', 'endpoint:token'] },
  catches: ['no-store-missing'],
  async run(ctx) {
    const client = ctx.client('machine');
    const res = await ctx.http.token(client, { grant_type: GRANT.clientCredentials, scope: client.scope || undefined });
    const rule = { when: 'A token response (client_credentials)', per: ctx.req.rfc6749_5_1 };
    expectTokenResponse(res, rule);
    expectHeader(res, 'Cache-Control', /(^|,)\s*no-store\s*(,|$)/i, {
      ...rule,
      want: 'Cache-Control: no-store on every response with tokens',
    });
  },
});
