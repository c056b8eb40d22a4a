import { CheckFailure, defineScenario } from '../../harness/scenario/scenario.ts';
import {
  codeFlowClient,
  describeResponse,
  dpopKey,
  jwtPayload,
  redeem,
  tokensOf,
  userinfoWith,
} from '../checks/index.ts';
import { hasScopeToken } from '../../protocol/scope.ts';
import { isRecord } from '../../protocol/guards.ts';

export default defineScenario({
  id: 'dpop.token-bound',
  title:
    "A token request with a DPoP proof gets token_type DPoP and an access token bound to the proof's key (cnf.jkt)",
  requirements: {
    rfc9449_5: {
      spec: 'RFC 9449',
      section: '5',
      level: 'MUST',
      party: 'server',
      note: 'token_type DPoP for a DPoP-bound access token',
    },
    rfc9449_6_1: {
      spec: 'RFC 9449',
      section: '6.1',
      level: 'MUST',
      party: 'server',
      note: "a JWT access token carries cnf.jkt, the key's SHA-256 thumbprint",
    },
    rfc9700_2_2_1: {
      spec: 'RFC 9700',
      section: '2.2.1',
      level: 'SHOULD',
      party: 'server',
      note: 'sender-constrained access tokens',
    },
    fapi2_5_3_2_1: {
      spec: 'FAPI 2.0 SP',
      section: '5.3.2.1',
      level: 'MUST',
      party: 'server',
      note: 'only sender-constrained access tokens (DPoP or mTLS)',
    },
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: {
    optionalRoles: ['keyed', 'confidential', 'public', 'confidential2'],
    user: true,
    capabilities: ['grant:authorization_code', 'endpoint:authorization', 'endpoint:token'],
  },
  async run(ctx) {
    const client = codeFlowClient(ctx) ?? ctx.skip('needs a code-flow client with a redirect URI');
    const key = dpopKey(ctx);
    if (ctx.applies(ctx.req.fapi2_5_3_2_1)) {
      // FAPI 2.0 (§5.3.2.1): no token that is not sender-constrained; the same code then redeems with a proof.
      const code = await ctx.flows.code(client.role);
      const bare = await redeem(ctx, client, code, undefined, 'token request without a DPoP proof');
      await ctx.softly(() => {
        if (
          bare.status === 200 &&
          typeof bare.body.access_token === 'string' &&
          String(bare.body.token_type).toLowerCase() !== 'dpop'
        ) {
          throw new CheckFailure(
            `A token request without a DPoP proof got ${describeResponse(bare)} ` +
              `(token_type ${JSON.stringify(bare.body.token_type)}), a token that is not ` +
              `sender-constrained; ${ctx.req.fapi2_5_3_2_1} allows only sender-constrained access tokens (DPoP; ` +
              `mTLS is not covered by this harness).`,
            { requirement: ctx.req.fapi2_5_3_2_1 },
          );
        }
      });
    }
    const code = await ctx.flows.code(client.role);
    const res = await redeem(ctx, client, code, key);
    const tokens = tokensOf(res, `redeeming the code as ${client.role} with a DPoP proof`);
    if (String(tokens.token_type).toLowerCase() !== 'dpop') {
      throw new CheckFailure(
        `A token request with a valid DPoP proof got ` +
          `token_type ${JSON.stringify(tokens.token_type)}; ${ctx.req.rfc9449_5} requires token_type DPoP for a ` +
          `DPoP-bound access ` +
          `token${
            String(tokens.token_type).toLowerCase() === 'bearer'
              ? ' (a Bearer token here means the proof ' + 'was ignored)'
              : ''
          }.`,
        { requirement: ctx.req.rfc9449_5, kind: 'refused-wrongly' },
      );
    }
    const payload = jwtPayload(tokens.access_token);
    if (!payload)
      ctx.evidence.note(
        'The access token is opaque: its cnf cannot be read from outside (introspection would show it, RFC 9449 §6.2).',
      );
    else {
      const jkt = isRecord(payload.cnf) ? payload.cnf.jkt : undefined;
      ctx.evidence.note(`cnf.jkt ${JSON.stringify(jkt)}; the proof key's thumbprint ${key.thumbprint}`);
      if (jkt !== key.thumbprint) {
        throw new CheckFailure(
          `The DPoP-bound JWT access token has cnf.jkt ${JSON.stringify(jkt)}, not the proof key's ` +
            `thumbprint ${key.thumbprint}; RFC 9449 §6.1 requires cnf.jkt to be the SHA-256 JWK thumbprint of the key.`,
          { requirement: ctx.req.rfc9449_6_1 },
        );
      }
    }
    if (ctx.target.endpoints.userinfo && hasScopeToken(client.scope, 'openid')) {
      const info = await userinfoWith(ctx, tokens.access_token, 'DPoP', key);
      ctx.evidence.note(
        info.status === 200
          ? 'userinfo answered 200 to the token in the DPoP scheme with a proof.'
          : `userinfo answered ${info.status} to the token in the DPoP scheme (it may not support DPoP; not ` +
              `judged here).`,
      );
    }
  },
});
