import { defineScenario } from '../../harness/scenario/scenario.ts';
import {
  EXCHANGE_OF_USER_TOKEN,
  exchangeRequest,
  expectScopesWithheld,
  expectSubjectExchangeable,
  scopeList,
  userSubjectToken,
} from '../checks/index.ts';

export default defineScenario({
  id: 'token-exchange.scope-escalation',
  title: 'Token exchange asking for a wider scope than the subject token has is refused',
  requirements: {
    specErrors: {
      spec: 'SPEC',
      section: 'Errors',
      level: 'MUST',
      party: 'server',
      note: 'rule 4: no scope escalation',
    },
    rfc8693_2_2_2: { spec: 'RFC 8693', section: '2.2.2', level: 'MUST', party: 'server' },
  },
  severity: 'critical',
  appliesTo: 'oauth2',
  requires: EXCHANGE_OF_USER_TOKEN,
  catches: ['exchange-upscope'],
  async run(ctx) {
    const subject = await userSubjectToken(ctx);
    // The extra scope lies within what the exchange client may hold: only the subject limits it.
    const mayHold = scopeList(ctx.client('exchange').scope);
    const extra = mayHold.filter((s) => !subject.scope.includes(s));
    if (extra.length === 0) {
      ctx.skip(
        `every scope the exchange client may hold ("${mayHold.join(' ')}") is in the subject token's scope already, ` +
          `so no wider scope can be asked for within the client's own allowance`,
      );
    }
    await expectSubjectExchangeable(ctx, subject);

    const requested = [...subject.exchangeable, ...extra];
    const res = await exchangeRequest(
      ctx,
      subject.token,
      requested,
      'token exchange asking for more scope than the subject token has',
    );
    const when = `Exchanging a user's access token (scope "${subject.scope.join(' ')}") for "${requested.join(' ')}"`;
    // Refused, or a token that leaves the extra scope out (RFC 6749 §3.3).
    expectScopesWithheld(res, extra, requested, ctx.jwt, {
      when,
      per: ctx.applies(ctx.req.specErrors) ? ctx.req.specErrors : ctx.req.rfc8693_2_2_2,
    });
  },
});
