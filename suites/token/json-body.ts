import { defineScenario } from '../../harness/scenario/scenario.ts';
import { expectBearer, expectTokenResponse, tokenGrantsAvailable, tokenResponses } from '../checks/index.ts';

export default defineScenario({
  id: 'token.json-body',
  title: 'The token endpoint accepts a JSON request body (Content-Type: application/json), with any client the run has',
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
  requires: { optionalRoles: ['public', 'confidential', 'confidential2', 'machine'], capabilities: ['endpoint:token'] },
  catches: ['json-body-rejected'],
  async run(ctx) {
    const missing = tokenGrantsAvailable(ctx);
    if (missing) return ctx.skip(missing);
    // The first grant the run can use (client_credentials, else the code redemption), sent as JSON.
    const [first] = await tokenResponses(ctx, { encoding: 'json', only: 'first' });
    if (!first) return ctx.skip('no grant the run could use');
    const rule = { when: `A token request (${first.what}) sent as application/json`, per: ctx.req.specTokenEndpoint };
    expectBearer(expectTokenResponse(first.res, rule), rule);
  },
});
