import { CheckFailure, defineScenario } from '../../harness/scenario/scenario.ts';
import { codeFlowClient, describeResponse, dpopKey, dpopTokens, userinfoWith } from '../checks/index.ts';
import { hasScopeToken } from '../../protocol/scope.ts';

export default defineScenario({
  id: 'dpop.no-bearer-downgrade',
  title: 'A DPoP-bound access token presented as a Bearer token is refused at userinfo',
  requirements: {
    rfc9449_7_2: {
      spec: 'RFC 9449',
      section: '7.2',
      level: 'MUST',
      party: 'server',
      note: 'a resource supporting DPoP and Bearer rejects a DPoP-bound token sent as Bearer',
    },
    fapi2_5_3_4: {
      spec: 'FAPI 2.0 SP',
      section: '5.3.4',
      level: 'MUST',
      party: 'server',
      note: 'resource servers verify sender-constrained access tokens',
    },
  },
  severity: 'critical',
  appliesTo: 'oauth2',
  requires: {
    optionalRoles: ['keyed', 'confidential', 'public', 'confidential2'],
    user: true,
    capabilities: ['grant:authorization_code', 'endpoint:token', 'endpoint:userinfo'],
  },
  catches: ['dpop-bearer-accepted'],
  async run(ctx) {
    const client =
      codeFlowClient(ctx, (c) => hasScopeToken(c.scope, 'openid')) ??
      ctx.skip('needs a code-flow client with the openid scope');
    const key = dpopKey(ctx);
    const tokens = await dpopTokens(ctx, client, key);
    if (String(tokens.token_type).toLowerCase() !== 'dpop')
      return ctx.skip(`the token came as ${tokens.token_type}, not DPoP-bound (dpop.token-bound judges that)`);
    const dpop = await userinfoWith(ctx, tokens.access_token, 'DPoP', key);
    if (dpop.status !== 200)
      return ctx.skip(
        `userinfo answered ${dpop.status} to the token in the DPoP scheme: it does not take DPoP, ` +
          `and ${ctx.req.rfc9449_7_2} binds resources that support both schemes`,
      );
    const bearer = await userinfoWith(ctx, tokens.access_token, 'Bearer');
    if (bearer.status < 400) {
      throw new CheckFailure(
        `userinfo answered ${describeResponse(bearer)} to the DPoP-bound access token presented as a Bearer token ` +
          `(no proof); ${ctx.req.rfc9449_7_2} requires it to be rejected, or anyone holding the token could use it.`,
        { requirement: ctx.req.rfc9449_7_2 },
      );
    }
    ctx.evidence.note(
      `As Bearer: HTTP ${bearer.status}` +
        `${bearer.header('www-authenticate') ? ` (WWW-Authenticate: ${bearer.header('www-authenticate')})` : ''}.`,
    );
  },
});
