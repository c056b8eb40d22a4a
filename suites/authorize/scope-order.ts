import { defineScenario } from '../../harness/scenario/scenario.ts';
import {
  CODE_FLOW_CAPABILITIES,
  expectAuthorizationCode,
  expectTokenResponse,
  codeFlowScope,
} from '../checks/index.ts';
import { scopeTokens } from '../../protocol/scope.ts';

export default defineScenario({
  id: 'authorize.scope-order',
  title: 'The same scopes in another order are accepted: scope is a set',
  requirements: {
    rfc6749_3_3: {
      spec: 'RFC 6749',
      section: '3.3',
      level: 'MUST',
      party: 'server',
      note: 'the order of scope values does not matter',
    },
  },
  severity: 'low',
  appliesTo: 'oauth2',
  requires: { roles: ['confidential'], user: true, capabilities: CODE_FLOW_CAPABILITIES },
  catches: ['scope-order-sensitive'],
  async run(ctx) {
    const client = ctx.client('confidential');
    const scopes = scopeTokens(codeFlowScope(ctx.target, client.scope));
    if (scopes.length < 2)
      return ctx.skip('clients.confidential.scope has a single value; there is no other order to send');
    const reversed = [...scopes].reverse().join(' ');
    const pkce = ctx.pkce.create();
    const outcome = await ctx.authorize(
      'confidential',
      {
        scope: reversed,
        nonce: ctx.random(),
        code_challenge: pkce.challenge,
        code_challenge_method: pkce.method,
      },
      { session: 'shared' },
    );
    const rule = {
      when: `The authorization request with scope "${reversed}" (the configured scope in reverse order)`,
      per: ctx.req.rfc6749_3_3,
    };
    const code = expectAuthorizationCode(outcome, rule);
    const res = await ctx.http.token(
      client,
      {
        grant_type: 'authorization_code',
        code,
        redirect_uri: outcome.request.redirect_uri,
        code_verifier: pkce.verifier,
      },
      { label: 'token request for the reordered scope' },
    );
    expectTokenResponse(res, { ...rule, when: 'Redeeming the code of the reordered scope' });
  },
});
