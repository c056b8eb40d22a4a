import { CheckFailure, GRANT, defineScenario } from '../../harness/scenario/scenario.ts';
import { CODE_FLOW_CAPABILITIES, authorizationAnswer, describeResponse, expectRefusalIsFor } from '../checks/index.ts';

/**
 * A code_challenge sent without code_challenge_method means plain (RFC 7636 §4.3). Whatever the server makes of it,
 * a code it issues for that challenge must then be redeemable only with a verifier that matches (RFC 7636 §4.6). A
 * server that drops the challenge and accepts any verifier breaks that in every profile; refusing the request
 * (a server that supports only S256) is fine. Whether plain itself is allowed is pkce.plain-rejected's rule.
 */
export default defineScenario({
  id: 'pkce.default-method',
  title:
    'A code_challenge without code_challenge_method (plain, RFC 7636 §4.3) is not dropped: a code issued for it is ' +
    'not redeemed with a verifier that does not match',
  requirements: {
    rfc7636_4_6: {
      spec: 'RFC 7636',
      section: '4.6',
      level: 'MUST',
      party: 'server',
      note: 'the verifier is checked against the challenge of the request, whose method defaults to plain (§4.3)',
    },
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: { roles: ['confidential'], user: true, capabilities: CODE_FLOW_CAPABILITIES },
  catches: ['pkce-default-method-ignored'],
  async run(ctx) {
    const client = ctx.client('confidential');
    const challenge = ctx.pkce.create().verifier; // well-formed for plain: 43+ unreserved characters
    const other = ctx.pkce.create().verifier; // matches nothing that was sent
    const outcome = await ctx.authorize('confidential', { code_challenge: challenge }, { session: 'shared' });
    const answer = authorizationAnswer(outcome, 'The authorization request with a code_challenge and no method');
    if (answer.kind === 'refused') {
      await expectRefusalIsFor(
        ctx,
        'confidential',
        `with a code_challenge and no code_challenge_method ${answer.how}`,
        'the challenge without a method',
      );
      return;
    }
    const res = await ctx.http.token(
      client,
      { grant_type: GRANT.code, code: answer.code, redirect_uri: outcome.request.redirect_uri, code_verifier: other },
      { label: 'token request with a code_verifier that matches no challenge' },
    );
    if (res.status === 200 && typeof res.body.access_token === 'string') {
      throw new CheckFailure(
        `A code issued for a code_challenge sent without code_challenge_method (plain, RFC 7636 §4.3) was redeemed ` +
          `with a code_verifier that matches neither it nor its S256 transform (${describeResponse(res)}): the ` +
          `challenge was dropped; ${ctx.req.rfc7636_4_6.label} requires the verifier to be checked against it.`,
        { requirement: ctx.req.rfc7636_4_6, kind: 'accepted' },
      );
    }
    ctx.evidence.note(
      `The code from a challenge without a method was refused with a verifier that matches nothing ` +
        `(${describeResponse(res)}): the challenge was kept.`,
    );
  },
});
