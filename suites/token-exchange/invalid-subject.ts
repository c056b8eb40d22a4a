import { forgeChangedSignature, forgeClaimsChanged } from '../../generators/index.ts';
import { defineScenario } from '../../harness/scenario/scenario.ts';
import {
  EXCHANGE_OF_USER_TOKEN,
  exchangeRequest,
  expectOAuthError,
  expectSubjectExchangeable,
  readJwt,
  userSubjectToken,
} from '../checks/index.ts';

/** One character changed, in the token's own alphabet: a forgery of an opaque token. */
const changeLastCharacter = (token: string) => `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;

export default defineScenario({
  id: 'token-exchange.invalid-subject',
  title: 'Token exchange with a forged or garbage subject_token gets invalid_request',
  requirements: { rfc8693_2_2_2: { spec: 'RFC 8693', section: '2.2.2', level: 'MUST', party: 'server' } },
  severity: 'critical',
  appliesTo: 'oauth2',
  requires: EXCHANGE_OF_USER_TOKEN,
  catches: ['exchange-subject-unverified', 'signature-unchecked'],
  async run(ctx) {
    const subject = await userSubjectToken(ctx);
    await expectSubjectExchangeable(ctx, subject);
    const jwt = readJwt(subject.token);
    const subjects = [
      { what: 'a garbage subject_token', token: ctx.random(32) },
      jwt
        ? {
            what: 'the genuine subject token with one signature bit flipped',
            token: forgeChangedSignature(subject.token, 0),
          }
        : {
            what: 'the genuine subject token with its last character changed',
            token: changeLastCharacter(subject.token),
          },
      ...(jwt
        ? [
            {
              what: 'the genuine subject token with its sub changed and the signature kept',
              token: forgeClaimsChanged(subject.token, { sub: `${String(jwt.payload.sub)}-other` }),
            },
          ]
        : []),
    ];
    for (const { what, token } of subjects) {
      const res = await exchangeRequest(ctx, token, subject.exchangeable, `token exchange with ${what}`);
      await ctx.softly(() =>
        expectOAuthError(res, 'invalid_request', { when: `Token exchange with ${what}`, per: ctx.req.rfc8693_2_2_2 }),
      );
    }
  },
});
