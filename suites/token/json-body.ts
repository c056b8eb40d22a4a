import { GRANT, defineScenario } from '../../harness/scenario.ts';
import { expectBearer, expectTokenResponse } from '../checks/index.ts';

export default defineScenario({
  id: 'token.json-body',
  title: 'The token endpoint accepts a JSON request body (Content-Type: application/json)',
  // The SPEC's own rule: RFC 6749 §3.2 has form bodies only, so the rfc profile skips this.
  requirements: {
    specTokenEndpoint: {
      spec: 'SPEC',
      section: 'Token endpoint',
      level: 'MUST',
      party: 'server',
      note: 'JSON request body',
    },
  },
  severity: 'medium',
  appliesTo: 'oauth2',
  requires: { roles: ['machine'], capabilities: ['grant:client_credentials', 'endpoint:token'] },
  catches: ['json-body-rejected'],
  async run(ctx) {
    const client = ctx.client('machine');
    const res = await ctx.http.token(
      client,
      { grant_type: GRANT.clientCredentials, scope: client.scope || undefined },
      {
        encoding: 'json',
        label: 'client_credentials as a JSON body',
      },
    );
    const rule = { when: 'A client_credentials request sent as application/json', per: ctx.req.specTokenEndpoint };
    expectBearer(expectTokenResponse(res, rule), rule);
  },
});
