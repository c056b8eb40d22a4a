import { CheckFailure, GRANT, type Params, defineScenario } from '../../harness/scenario/scenario.ts';
import { authorizationAnswer, describeResponse, expectRefusalIsFor } from '../checks/index.ts';

/**
 * What plain gets wrong is that its challenge is the verifier: anyone who reads the authorization
 * request (attacker A4 of RFC 9700 §3) can redeem the code. So the check is exactly that: either
 * the authorization endpoint refuses the plain challenge, or the code cannot be redeemed with the
 * challenge sent as the verifier. Without code_challenge_method the method is plain (RFC 7636 §4.3).
 */
const VARIANTS: ReadonlyArray<{ name: string; params: (challenge: string) => Params }> = [
  {
    name: 'code_challenge_method=plain',
    params: (challenge) => ({ code_challenge: challenge, code_challenge_method: 'plain' }),
  },
  {
    name: 'a code_challenge without code_challenge_method (RFC 7636 §4.3: the method is then plain)',
    params: (challenge) => ({ code_challenge: challenge }),
  },
];

export default defineScenario({
  id: 'pkce.plain-rejected',
  title: 'A plain PKCE challenge, which exposes the verifier, is refused',
  requirements: {
    specCodeChallengePkce: {
      spec: 'SPEC',
      section: 'Code challenge (PKCE)',
      level: 'MUST',
      party: 'server',
      note: 'code_challenge_method: S256',
    },
    // "Clients SHOULD use PKCE code challenge methods that do not expose the PKCE verifier": it binds the client, so
    // under
    // --profile rfc no document requires the server to refuse plain, and the scenario is skipped there.
    rfc9700_2_1_1: {
      spec: 'RFC 9700',
      section: '2.1.1',
      level: 'SHOULD',
      party: 'client',
      note: 'clients use methods that do not expose the verifier',
    },
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: {
    roles: ['confidential'],
    user: true,
    capabilities: ['grant:authorization_code', 'endpoint:authorization', 'endpoint:token'],
  },
  catches: ['pkce-plain-allowed', 'pkce-default-method-ignored'],
  async run(ctx) {
    const client = ctx.client('confidential');
    const refusals: string[] = [];
    for (const variant of VARIANTS) {
      await ctx.softly(async () => {
        const exposed = ctx.pkce.create().verifier; // a well-formed verifier, sent as the challenge
        const outcome = await ctx.authorize('confidential', variant.params(exposed), { session: 'shared' });
        const answer = authorizationAnswer(outcome, `The authorization request with ${variant.name}`);
        if (answer.kind === 'refused') {
          refusals.push(`with ${variant.name} ${answer.how}`);
          return;
        }
        const res = await ctx.http.token(
          client,
          {
            grant_type: GRANT.code,
            code: answer.code,
            redirect_uri: outcome.request.redirect_uri,
            code_verifier: exposed,
          },
          { label: `token request with the ${variant.name} challenge as code_verifier` },
        );
        if (res.status === 200 && typeof res.body.access_token === 'string') {
          const rfc = 'RFC 9700 §2.1.1 asks for a method that does not expose the verifier';
          throw new CheckFailure(
            `An authorization request with ${variant.name} got a code, and the code was redeemed with the challenge ` +
              `itself as code_verifier (${describeResponse(res)}), so whoever reads the authorization request can ` +
              `redeem it; ${ctx.profile === 'spec' ? `the SPEC allows only S256, and ${rfc}` : rfc}.`,
          );
        }
        ctx.evidence.note(
          `With ${variant.name} the code was issued, but the challenge did not redeem it ` +
            `(${describeResponse(res)}): the exposed value is useless.`,
        );
      });
    }
    if (refusals.length) await expectRefusalIsFor(ctx, 'confidential', refusals.join('; '), 'the plain challenge');
  },
});
