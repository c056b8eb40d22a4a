import { clientAssertion, defineScenario } from '../../harness/scenario/scenario.ts';
import { expectOAuthError, provesSoundAssertionWorks, redeemWithAssertion } from '../checks/index.ts';

export default defineScenario({
  id: 'client-auth.assertion-audience',
  title:
    'A client assertion whose aud names another server is refused (under FAPI 2.0: anything but ' +
    'the issuer as a string)',
  requirements: {
    rfc7523_3: {
      spec: 'RFC 7523',
      section: '3',
      level: 'MUST',
      party: 'server',
      note: 'reject a JWT that does not name this server as its audience',
    },
    rfc6749_5_2: { spec: 'RFC 6749', section: '5.2', level: 'MUST', party: 'server', note: 'invalid_client' },
    fapi2_5_3_2_1: {
      spec: 'FAPI 2.0 SP',
      section: '5.3.2.1',
      level: 'MUST',
      party: 'server',
      note: 'only the issuer identifier, as a string, in aud',
    },
  },
  severity: 'critical',
  appliesTo: 'oauth2',
  requires: {
    roles: ['keyed'],
    user: true,
    capabilities: ['auth:private_key_jwt', 'grant:authorization_code', 'endpoint:token'],
  },
  catches: ['client-assertion-aud-unchecked'],
  async run(ctx) {
    const client = ctx.client('keyed');
    const audiences = [
      {
        name: "another server's token endpoint",
        aud: `https://idpc-other-${ctx.random(4).toLowerCase()}.invalid/token`,
        per: ctx.req.rfc7523_3,
      },
    ];
    if (ctx.applies(ctx.req.fapi2_5_3_2_1)) {
      audiences.push({
        name: 'the token endpoint URL instead of the issuer',
        aud: ctx.target.endpoints.token!,
        per: ctx.req.fapi2_5_3_2_1,
      });
    }
    const code = await ctx.flows.code('keyed');
    for (const a of audiences) {
      const res = await redeemWithAssertion(
        ctx,
        client,
        code,
        clientAssertion(client, { audience: a.aud }),
        `token request with a client assertion for ${a.name}`,
      );
      await ctx.softly(() =>
        expectOAuthError(res, 'invalid_client', {
          when: `A token request with a client assertion whose aud is ${a.name} (${a.aud})`,
          per: a.per,
        }),
      );
    }
    await provesSoundAssertionWorks(ctx, client, code);
  },
});
