import { generateKeyPairSync } from 'node:crypto';
import { clientAssertion, defineScenario, jwkOf } from '../../harness/scenario/scenario.ts';
import { expectOAuthError, provesSoundAssertionWorks, redeemWithAssertion } from '../checks/index.ts';

export default defineScenario({
  id: 'client-auth.private-key-jwt',
  title:
    'A signed client assertion (private_key_jwt) authenticates; an unsigned, expired or foreign-key assertion gets ' +
    'invalid_client',
  requirements: {
    rfc7523_3: {
      spec: 'RFC 7523',
      section: '3',
      level: 'MUST',
      party: 'server',
      note: 'reject an expired JWT, a JWT without a valid signature',
    },
    oidcCore_9: {
      spec: 'OIDC Core',
      section: '9',
      level: 'MUST',
      party: 'server',
      note: "private_key_jwt: a JWT signed with the client's registered key",
    },
    rfc6749_5_2: { spec: 'RFC 6749', section: '5.2', level: 'MUST', party: 'server', note: 'invalid_client' },
    rfc9700_2_5: {
      spec: 'RFC 9700',
      section: '2.5',
      level: 'SHOULD',
      party: 'server',
      note: 'asymmetric client authentication is recommended',
    },
    fapi2_5_3_2_1: {
      spec: 'FAPI 2.0 SP',
      section: '5.3.2.1',
      level: 'MUST',
      party: 'server',
      note: 'clients authenticate with private_key_jwt or mTLS',
    },
  },
  severity: 'critical',
  appliesTo: 'oauth2',
  requires: {
    roles: ['keyed'],
    user: true,
    capabilities: ['auth:private_key_jwt', 'grant:authorization_code', 'endpoint:token'],
  },
  async run(ctx) {
    const client = ctx.client('keyed');
    const audience = ctx.target.issuer;
    const foreign = jwkOf(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey);
    const wrong = [
      { name: 'an unsigned assertion (alg none)', assertion: () => clientAssertion(client, { audience, alg: 'none' }) },
      {
        name: 'an assertion that expired two minutes ago',
        assertion: () => clientAssertion(client, { audience, expiresIn: -120 }),
      },
      {
        name: 'an assertion signed by a key the client never registered',
        assertion: () =>
          clientAssertion(client, {
            audience,
            signWith: { ...foreign, kid: client.privateJwk?.kid ?? 'k' },
          }),
      },
    ];
    const code = await ctx.flows.code('keyed');
    for (const w of wrong) {
      const res = await redeemWithAssertion(ctx, client, code, w.assertion(), `token request with ${w.name}`);
      await ctx.softly(() =>
        expectOAuthError(res, 'invalid_client', {
          when: `A token request authenticated with ${w.name}`,
          per: ctx.req.rfc7523_3,
        }),
      );
    }
    await provesSoundAssertionWorks(ctx, client, code);
  },
});
