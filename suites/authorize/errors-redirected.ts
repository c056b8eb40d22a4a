import {
  CheckFailure,
  type Params,
  type ScenarioContext,
  defineScenario,
  describeOutcome,
} from '../../harness/scenario/scenario.ts';
import { CODE_FLOW_CAPABILITIES, authorizationAnswer, expectRefusalIsFor, pkceParams } from '../checks/index.ts';

/**
 * RFC 6749 §4.1.2.1: once the client and its redirection URI are known to be valid, an error goes back to the client:
 * "If the resource owner denies the access request or if the request fails for reasons other than a missing or
 * invalid redirection URI, the authorization server informs the client by adding the following parameters to the
 * query component of the redirection URI", among them `error` (REQUIRED) and `state` ("REQUIRED if a "state"
 * parameter was present in the client authorization request"). Whether a request is refused at all is other
 * scenarios' rule (scope.escalation-authorize, pkce.plain-rejected, …): here a request answered with a code is not
 * judged, only how a refusal reaches the client. Three requests of a known client with its registered redirect_uri
 * and a state, each wrong in one way that RFC 6749 or RFC 7636 answers with an error code of §4.1.2.1.
 */
const PROBES: ReadonlyArray<{ name: string; params: (ctx: ScenarioContext) => Params }> = [
  {
    name: 'a scope the server does not know',
    params: (ctx) => {
      const scope = ctx.client('confidential').scope ?? '';
      return { scope: `${scope} conformance-unknown-${ctx.random(6)}`.trim(), ...pkceParams(ctx) };
    },
  },
  {
    name: 'an unsupported response_type',
    params: (ctx) => ({ response_type: `conformance_unknown_${ctx.random(6)}`, ...pkceParams(ctx) }),
  },
  {
    // RFC 7636 §4.4.1: an unsupported transformation gets invalid_request.
    name: 'an unknown code_challenge_method',
    params: (ctx) => ({ code_challenge: ctx.pkce.create().challenge, code_challenge_method: 'S1024' }),
  },
];

export default defineScenario({
  id: 'authorize.errors-redirected',
  title:
    'An invalid authorization request of a valid client with its registered redirect_uri is answered by a redirect ' +
    'to it with error and state, not a page',
  requirements: {
    rfc6749_4_1_2_1: {
      spec: 'RFC 6749',
      section: '4.1.2.1',
      level: 'MUST',
      party: 'server',
      note: 'any other error: error and state (REQUIRED if sent) added to the redirection URI',
    },
  },
  severity: 'low',
  appliesTo: 'oauth2',
  requires: { roles: ['confidential'], user: true, capabilities: CODE_FLOW_CAPABILITIES },
  catches: ['authorize-errors-as-page', 'state-dropped'],
  async run(ctx) {
    const pushed = ctx.target.endpoints.pushedAuthorization;
    const pages: string[] = [];
    const judged: string[] = [];
    for (const probe of PROBES) {
      const outcome = await ctx.authorize('confidential', probe.params(ctx), { session: 'shared' });
      const when = `The authorization request with ${probe.name}`;
      const answer = authorizationAnswer(outcome, when);
      if (answer.kind === 'code') {
        ctx.evidence.note(
          `${when} got a code: no error to redirect (whether it should be refused is not judged here).`,
        );
        continue;
      }
      if (outcome.kind === 'page' && pushed !== undefined && outcome.url === pushed) {
        // RFC 9126 §2.3: a pushed request's error is the push's answer; nothing reached the authorization endpoint.
        ctx.evidence.note(`${when} was refused at the pushed authorization request endpoint (RFC 9126 §2.3).`);
        continue;
      }
      judged.push(probe.name);
      if (outcome.kind === 'page') {
        pages.push(`with ${probe.name} ${answer.how}`);
        continue;
      }
      const sent = outcome.request.state;
      if (sent !== undefined && outcome.params.state !== sent) {
        const got = outcome.params.state === undefined ? "without the request's state" : 'with another state';
        throw new CheckFailure(
          `${when} ${describeOutcome(outcome)}, ${got}; ` +
            `RFC 6749 §4.1.2.1 makes state REQUIRED in the error response when the request carried one, with its ` +
            `exact value.`,
          { requirement: ctx.req.rfc6749_4_1_2_1, kind: 'refused-wrongly' },
        );
      }
      ctx.evidence.note(`${when} ${describeOutcome(outcome)}, state returned.`);
    }
    if (judged.length === 0)
      return ctx.skip(
        `none of the requests (${PROBES.map((p) => p.name).join('; ')}) was refused at the authorization endpoint, ` +
          'so no error response could be seen',
      );
    if (pages.length === 0) return;
    // A page is a failure only for a client and redirect_uri the server takes as valid: the same client's sound
    // request must get a code.
    const refused = pages.join('; ');
    await expectRefusalIsFor(ctx, 'confidential', refused, 'the request itself, not the client or its redirect_uri');
    throw new CheckFailure(
      `The authorization request ${refused}, though the client and its registered redirect_uri are valid (the same ` +
        `client's sound request got a code); RFC 6749 §4.1.2.1 has the server inform the client of such an error ` +
        `by redirecting to the redirection URI with error and state.`,
      { requirement: ctx.req.rfc6749_4_1_2_1, kind: 'refused-wrongly' },
    );
  },
});
