import {
  type AuthorizeResult,
  CheckFailure,
  PreconditionError,
  type RequirementRef,
  defineScenario,
  describeOutcome,
} from '../../harness/scenario/scenario.ts';
import { codeFlowClient } from '../checks/index.ts';
import { mcpRequirement } from '../../harness/model/mcp-requirement.ts';

/** The authorization response's iss is exactly the issuer (RFC 9207 §2: "MUST ... iss ... issuer identifier"). */
function expectIss(outcome: AuthorizeResult, issuer: string, what: string, per: RequirementRef): void {
  if (outcome.kind !== 'redirect') return;
  const iss = outcome.params.iss;
  if (iss === undefined)
    throw new CheckFailure(
      `${what} carried no iss parameter; ${per} requires iss in every authorization response (success and error) of ` +
        `a server that advertises authorization_response_iss_parameter_supported.`,
      { requirement: per },
    );
  if (iss !== issuer)
    throw new CheckFailure(
      `${what} carried iss=${JSON.stringify(iss)}, not the issuer "${issuer}"; ${per} requires the issuer ` +
        `identifier exactly.`,
      { requirement: per },
    );
}

export default defineScenario({
  id: 'mixup.iss-parameter',
  title: 'Every authorization response (success and error) carries iss, equal to the issuer (mix-up defense)',
  requirements: {
    rfc9207_2: {
      spec: 'RFC 9207',
      section: '2',
      level: 'MUST',
      party: 'server',
      note: 'iss in every authorization response, equal to the issuer identifier',
    },
    // "Clients MUST prevent mix-up attacks"; the iss defense is described, the duty is the client's (RFC 9207 §2 binds
    // the server).
    rfc9700_4_4_2: {
      spec: 'RFC 9700',
      section: '4.4.2',
      level: 'SHOULD',
      party: 'client',
      note: 'the iss parameter is the mix-up defense of choice',
    },
    fapi2_5_3_2_2: {
      spec: 'FAPI 2.0 SP',
      section: '5.3.2.2',
      level: 'MUST',
      party: 'server',
      note: 'shall return an iss parameter in the authorization response',
    },
    mcp_2026_07_28: mcpRequirement('iss/include', '2026-07-28', { note: 'iss in authorization responses' }),
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: {
    optionalRoles: ['keyed', 'confidential', 'public', 'confidential2'],
    user: true,
    capabilities: ['endpoint:authorization'],
  },
  catches: ['iss-missing'],
  async run(ctx) {
    // RFC 9207 binds servers that support it (they advertise it, §3); FAPI 2.0 binds every server.
    if (!ctx.target.supports('metadata:authorization_response_iss_parameter_supported') && ctx.profile !== 'fapi2') {
      return ctx.skip(
        'the target does not advertise authorization_response_iss_parameter_supported (RFC 9207 §3), so it need ' +
          'not send iss',
      );
    }
    const client = codeFlowClient(ctx) ?? ctx.skip('needs a code-flow client with a redirect URI');
    const issuer = ctx.target.issuer;
    const pkce = ctx.pkce.create();
    const success = await ctx.authorize(
      client.role,
      {
        code_challenge: pkce.challenge,
        code_challenge_method: pkce.method,
      },
      { session: 'shared' },
    );
    if (success.kind !== 'redirect' || !success.params.code)
      ctx.log('the sound request got no code; only the error response is checked');
    await ctx.softly(() => expectIss(success, issuer, 'The successful authorization response', ctx.req.rfc9207_2));
    // An error that is redirected (RFC 6749 §4.1.2.1): an unsupported response_type.
    const error = await ctx.authorize(
      client.role,
      {
        response_type: 'idpc_unsupported',
        code_challenge: pkce.challenge,
        code_challenge_method: pkce.method,
      },
      { session: 'shared' },
    );
    if (error.kind === 'redirect' && error.params.error)
      await ctx.softly(() =>
        expectIss(error, issuer, `The error response (error=${error.params.error})`, ctx.req.rfc9207_2),
      );
    else
      ctx.evidence.note(
        'The request with an unsupported response_type was not answered with an error redirect (an error page, or a ' +
          'refused push); its iss could not be checked.',
      );
    if (success.kind !== 'redirect' && !(error.kind === 'redirect' && error.params.error)) {
      // Not a missing premise: a sound request that never gets back to the redirect URI is a set-up problem.
      throw new PreconditionError(
        `no authorization response reached the redirect_uri (the sound request ${describeOutcome(success)}), so ` +
          'there is no iss to check',
      );
    }
  },
});
