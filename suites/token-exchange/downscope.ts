import { CheckFailure, defineScenario } from '../../harness/scenario/scenario.ts';
import {
  EXCHANGE_OF_USER_TOKEN,
  exchangeRequest,
  expectTokenResponse,
  grantedScopes,
  userSubjectToken,
} from '../checks/index.ts';

export default defineScenario({
  id: 'token-exchange.downscope',
  title: 'Exchanging a token for a narrower scope returns a token with that scope and issued_token_type',
  requirements: {
    rfc8693_2_2_1: { spec: 'RFC 8693', section: '2.2.1', level: 'MUST', party: 'server' },
    specTokenEndpoint: {
      spec: 'SPEC',
      section: 'Token endpoint',
      level: 'MUST',
      party: 'server',
      note: 'rule 3: a narrower scope by token exchange',
    },
  },
  severity: 'medium',
  appliesTo: 'oauth2',
  requires: EXCHANGE_OF_USER_TOKEN,
  async run(ctx) {
    const subject = await userSubjectToken(ctx);
    if (subject.exchangeable.length === 0) {
      ctx.skip(
        `the exchange client may hold none of the subject token's scopes ("${subject.scope.join(' ')}"; ` +
          `clients.exchange.scope "${ctx.client('exchange').scope}")`,
      );
    }
    // Narrower than the subject: what the exchange client may hold of it, one scope fewer if that is all of it.
    const requested =
      subject.exchangeable.length < subject.scope.length ? subject.exchangeable : subject.exchangeable.slice(0, -1);
    if (requested.length === 0)
      ctx.skip(
        `the subject token has the single scope "${subject.scope.join(' ')}": there is nothing narrower to ask for`,
      );

    const res = await exchangeRequest(ctx, subject.token, requested, 'token exchange for a narrower scope');
    const when =
      `Exchanging a user's access token (scope "${subject.scope.join(' ')}") for the narrower scope ` +
      `"${requested.join(' ')}"`;
    const tokens = expectTokenResponse(res, { when, per: ctx.req.rfc8693_2_2_1 });
    if (typeof res.body.issued_token_type !== 'string' || !res.body.issued_token_type) {
      throw new CheckFailure(`${when} returned no issued_token_type; RFC 8693 §2.2.1 requires it.`, {
        requirement: ctx.req.rfc8693_2_2_1,
        kind: 'refused-wrongly',
      });
    }
    for (const { source, scopes } of grantedScopes(tokens, requested, ctx.jwt)) {
      const beyond = scopes.filter((s) => !requested.includes(s));
      if (beyond.length) {
        throw new CheckFailure(
          `${when} granted ${beyond.join(', ')} as well (${source}); the SPEC's token rule 3 and RFC 8693 §2.2.1 ` +
            `call for the narrower scope asked for.`,
        );
      }
    }
  },
});
