import { clientAssertion, defineScenario } from '../../harness/scenario/scenario.ts';
import { expectOAuthError, provesSoundAssertionWorks, redeemWithAssertion, tokensOf } from '../checks/index.ts';

export default defineScenario({
  id: 'client-auth.assertion-replay',
  title: 'A client assertion used once is refused the second time (its jti is single use)',
  requirements: {
    oidcCore_9: {
      spec: 'OIDC Core',
      section: '9',
      level: 'MUST',
      party: 'server',
      note: 'jti: these tokens MUST only be used once',
    },
    rfc7523_3: {
      spec: 'RFC 7523',
      section: '3',
      level: 'MAY',
      party: 'server',
      note: 'the server may keep used jti values to refuse replays',
    },
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: {
    roles: ['keyed'],
    user: true,
    capabilities: ['auth:private_key_jwt', 'grant:authorization_code', 'endpoint:token'],
  },
  catches: ['client-assertion-replay'],
  async run(ctx) {
    const client = ctx.client('keyed');
    const assertion = clientAssertion(client, { audience: ctx.target.issuer, expiresIn: 120 });
    tokensOf(
      await redeemWithAssertion(
        ctx,
        client,
        await ctx.flows.code('keyed'),
        assertion,
        'token request with a client assertion (its first use)',
      ),
      'the first use of the assertion',
    );
    const code = await ctx.flows.code('keyed');
    const replay = await redeemWithAssertion(
      ctx,
      client,
      code,
      assertion,
      'token request with the same client assertion again',
    );
    expectOAuthError(replay, 'invalid_client', {
      when: 'A token request authenticated with a client assertion that had already been used (same jti)',
      per: ctx.req.oidcCore_9,
    });
    await provesSoundAssertionWorks(ctx, client, code);
  },
});
