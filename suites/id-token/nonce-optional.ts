import { defineScenario } from '../../harness/scenario/scenario.ts';
import {
  CODE_FLOW_CAPABILITIES,
  expectAuthorizationCode,
  expectIdToken,
  expectTokenResponse,
  withOpenid,
} from '../checks/index.ts';

export default defineScenario({
  id: 'id-token.nonce-optional',
  title: 'A code flow request without nonce succeeds: nonce is OPTIONAL for the code flow',
  requirements: {
    oidcCore_3_1_2_1: {
      spec: 'OIDC Core',
      section: '3.1.2.1',
      level: 'MUST',
      party: 'server',
      note: 'nonce is OPTIONAL with response_type=code',
    },
  },
  severity: 'low',
  appliesTo: 'oidc',
  requires: { roles: ['confidential'], user: true, capabilities: CODE_FLOW_CAPABILITIES },
  catches: ['nonce-required-for-code'],
  async run(ctx) {
    const client = ctx.client('confidential');
    const pkce = ctx.pkce.create();
    // nonce: undefined removes it, even if the harness one day sends one by default.
    const outcome = await ctx.authorize(
      'confidential',
      {
        scope: withOpenid(client.scope),
        nonce: undefined,
        code_challenge: pkce.challenge,
        code_challenge_method: pkce.method,
      },
      { session: 'shared' },
    );
    const rule = { when: 'The code flow request without nonce', per: ctx.req.oidcCore_3_1_2_1 };
    const code = expectAuthorizationCode(outcome, rule);
    const res = await ctx.http.token(
      client,
      {
        grant_type: 'authorization_code',
        code,
        redirect_uri: outcome.request.redirect_uri,
        code_verifier: pkce.verifier,
      },
      { label: 'token request for the code issued without nonce' },
    );
    expectIdToken(expectTokenResponse(res, { ...rule, when: 'Redeeming the code issued without nonce' }), {
      ...rule,
      when: 'Redeeming the code issued without nonce',
    });
  },
});
