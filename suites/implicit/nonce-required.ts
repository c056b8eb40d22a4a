import {
  CheckFailure,
  JudgementError,
  PreconditionError,
  defineScenario,
  describeOutcome,
} from '../../harness/scenario/scenario.ts';
import {
  ResponseTypeRefused,
  forEachResponseType,
  frontChannelParams,
  frontChannelResponse,
  offeredResponseTypes,
  refusalOf,
  requireResponseTypes,
} from '../checks/index.ts';
import { isRecord } from '../../protocol/guards.ts';

/** The response types that return an ID token from the authorization endpoint: one implicit, one hybrid is tried. */
const IMPLICIT = ['id_token', 'id_token token'];
const HYBRID = ['code id_token', 'code id_token token'];
/** What a response that was not refused carries. */
const ISSUED = ['id_token', 'access_token', 'code'];

export default defineScenario({
  id: 'implicit.nonce-required',
  title:
    'An implicit or hybrid request whose response carries an ID token is refused without nonce (an error redirected ' +
    'is invalid_request), and succeeds with one',
  requirements: {
    // The request parameter: "nonce REQUIRED" in the implicit flow's request, which the client builds.
    oidcCore_3_2_2_1: {
      spec: 'OIDC Core',
      section: '3.2.2.1',
      level: 'MUST',
      party: 'client',
      note: 'nonce is REQUIRED in an implicit request',
    },
    oidcCore_3_3_2_11: {
      spec: 'OIDC Core',
      section: '3.3.2.11',
      level: 'MUST',
      party: 'client',
      note: 'use of the nonce claim is REQUIRED in the hybrid flow (the request carries it)',
    },
    // §3.2.2.2 and §3.3.2.2 validate the request as §3.1.2.2 does, whose step 3 binds the OP.
    oidcCore_3_1_2_2: {
      spec: 'OIDC Core',
      section: '3.1.2.2',
      level: 'MUST',
      party: 'server',
      note: 'the OP verifies that all REQUIRED parameters are present (§3.2.2.2, §3.3.2.2)',
    },
    rfc6749_4_2_2_1: {
      spec: 'RFC 6749',
      section: '4.2.2.1',
      level: 'MUST',
      party: 'server',
      note: 'invalid_request (a required parameter is missing), sent to the redirection URI',
    },
  },
  severity: 'medium',
  appliesTo: 'oidc',
  requires: { roles: ['legacy'], user: true, capabilities: ['endpoint:authorization'] },
  catches: ['implicit-nonce-optional'],
  async run(ctx) {
    requireResponseTypes(ctx, [...IMPLICIT, ...HYBRID]);
    const tried = [offeredResponseTypes(ctx.target, IMPLICIT)[0], offeredResponseTypes(ctx.target, HYBRID)[0]];
    await forEachResponseType(
      ctx,
      tried.filter((t): t is string => t !== undefined),
      async (responseType) => {
        // The same request as the control below, without the nonce.
        const params = frontChannelParams(ctx, responseType, undefined);
        const outcome = await ctx.authorize('legacy', params, { session: 'shared' });
        const flow = IMPLICIT.includes(responseType) ? 'implicit' : 'hybrid';
        const when = `The ${flow} request (response_type=${responseType}) without nonce`;
        if (outcome.kind === 'redirect' && ISSUED.some((p) => outcome.params[p]))
          throw new CheckFailure(
            `${when} was answered with ${ISSUED.filter((p) => outcome.params[p]).join(', ')}; ` +
              'OIDC Core §3.2.2.1 and §3.3.2.11 make nonce REQUIRED there, and §3.1.2.2 has the OP verify that every ' +
              'REQUIRED parameter is present (RFC 6749 §4.2.2.1: invalid_request).',
            { requirement: ctx.req.oidcCore_3_1_2_2, kind: 'accepted' },
          );
        // Pushed (RFC 9126, where the target requires it): the refusal is the push's error response (§2.3).
        const pushed = outcome.kind === 'page' && outcome.url === ctx.target.endpoints.pushedAuthorization;
        const error = outcome.kind === 'redirect' ? outcome.params.error : pushed ? jsonError(outcome.body) : undefined;
        const refusedPage = outcome.kind === 'page' && refusalOf(outcome) !== undefined;
        if (error === undefined && !refusedPage)
          throw new PreconditionError(`${when} ${describeOutcome(outcome)}: neither a response nor a refusal`);
        // The refusal counts only if the same request with a nonce gets its response.
        try {
          await frontChannelResponse(ctx, responseType);
        } catch (caught) {
          // The client is refused the response type itself, with or without a nonce: not judged (forEachResponseType).
          if (caught instanceof ResponseTypeRefused || !(caught instanceof PreconditionError)) throw caught;
          throw new JudgementError(
            `${when} ${describeOutcome(outcome)}, but the same request with a nonce failed too ` +
              `(${caught.message}), so the refusal cannot be put down to the missing nonce`,
          );
        }
        // A refusal by page: refused, which is this rule; whether it should have been redirected is
        // authorize.errors-redirected's rule (RFC 6749 §4.1.2.1), not judged twice.
        if (error === undefined) {
          ctx.evidence.note(`${when} ${describeOutcome(outcome)}; the same request with a nonce got its response.`);
          return;
        }
        if (error !== 'invalid_request') {
          throw new CheckFailure(
            `${when} ${describeOutcome(outcome)}, while the same request with a nonce succeeds; RFC 6749 §4.2.2.1 ` +
              'requires error=invalid_request (a required parameter is missing) sent to the redirection URI ' +
              '(RFC 9126 §2.3: in the error response of a pushed request).',
            { requirement: ctx.req.rfc6749_4_2_2_1, kind: 'refused-wrongly' },
          );
        }
        ctx.evidence.note(`${when} got error=invalid_request; the same request with a nonce got its response.`);
      },
    );
  },
});

/** The error code of a JSON error body (a refused pushed authorization request), if any. */
function jsonError(body: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    const error = isRecord(parsed) ? parsed.error : undefined;
    return typeof error === 'string' ? error : undefined;
  } catch {
    return undefined;
  }
}
