import { CheckFailure, defineScenario } from '../../harness/scenario/scenario.ts';
import { CODE_FLOW_CAPABILITIES, expectAuthorizationCode, expectTokenResponse, withOpenid } from '../checks/index.ts';

export default defineScenario({
  id: 'authorize.post',
  title: 'The authorization request sent as an HTML form POST works like the same request sent as GET',
  requirements: {
    oidcCore_3_1_2_1: {
      spec: 'OIDC Core',
      section: '3.1.2.1',
      level: 'MUST',
      party: 'server',
      note: 'the Authorization Endpoint MUST support GET and POST',
    },
  },
  severity: 'medium',
  appliesTo: 'oidc',
  requires: { roles: ['confidential'], user: true, capabilities: CODE_FLOW_CAPABILITIES },
  catches: ['authorize-get-only', 'state-dropped'],
  async run(ctx) {
    const client = ctx.client('confidential');
    const pkce = ctx.pkce.create();
    const outcome = await ctx.authorize(
      'confidential',
      {
        scope: withOpenid(client.scope),
        nonce: ctx.random(),
        code_challenge: pkce.challenge,
        code_challenge_method: pkce.method,
      },
      { method: 'POST' },
    );
    const rule = { when: 'The authorization request sent as a form POST', per: ctx.req.oidcCore_3_1_2_1 };
    const code = expectAuthorizationCode(outcome, rule);
    const state = outcome.kind === 'redirect' ? outcome.params.state : undefined;
    if (state !== outcome.request.state) {
      throw new CheckFailure(
        `${rule.when} redirected with a code but state ${JSON.stringify(state)}, not the state sent in the form; ` +
          `OIDC Core §3.1.2.1 requires the POST to be processed like a GET, and RFC 6749 §4.1.2 to return ` +
          `state unchanged.`,
        { requirement: ctx.req.oidcCore_3_1_2_1, kind: 'refused-wrongly' },
      );
    }
    const res = await ctx.http.token(
      client,
      {
        grant_type: 'authorization_code',
        code,
        redirect_uri: outcome.request.redirect_uri,
        code_verifier: pkce.verifier,
      },
      { label: 'token request for the code of the POSTed authorization request' },
    );
    expectTokenResponse(res, {
      when: 'Redeeming the code of the POSTed authorization request',
      per: ctx.req.oidcCore_3_1_2_1,
    });
  },
});
