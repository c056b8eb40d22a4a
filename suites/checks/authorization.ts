/**
 * How the authorization endpoint answered a request the scenario expects it may refuse: with a
 * code, or with a refusal — an error redirect to the redirect_uri (RFC 6749 §4.1.2.1) or an error
 * page shown instead of the login.
 */
import {
  type AuthorizeResult,
  type ClientRole,
  JudgementError,
  PreconditionError,
  type Requirement,
  type ScenarioContext,
  describeOutcome,
} from '../../harness/scenario/scenario.ts';

export type AuthorizationAnswer = { kind: 'code'; code: string } | { kind: 'refused'; how: string };

/**
 * The one model of a refusal at the authorization endpoint: how the request was refused, or undefined when it was
 * not (or its fate is unknown). A refusal is a redirect to the client with `error` (RFC 6749 §4.1.2.1), or a page
 * (any HTTP status, any text, no error class needed) after which no code was issued and nothing was redirected to
 * the client: the walk stopped on the IdP's origin, at an HTTP error, before any login or consent page, on a page
 * the walk took for an error page, or on a page that asks the user for nothing. A walk that stopped for a reason of
 * its own (a login that came back, a consent page without the control, a sign-in it was told not to do, a redirect
 * off the IdP) is no refusal: the request's fate is unknown.
 */
export function refusalOf(outcome: AuthorizeResult): string | undefined {
  if (outcome.kind === 'redirect') return outcome.params.error ? describeOutcome(outcome) : undefined;
  if (outcome.location !== undefined || outcome.signInPage) return undefined;
  const headline = outcome.headline ? ` "${outcome.headline}"` : '';
  if (outcome.status >= 400 || outcome.pages.length === 0 || outcome.errorPage)
    return `showed an error page (HTTP ${outcome.status}${headline})`;
  if (outcome.asksNothing)
    return `ended on a page that asks for nothing (HTTP ${outcome.status}${headline}): no code, nothing redirected`;
  return undefined;
}

/**
 * A code, or a refusal (refusalOf). Anything else (a login that did not finish, a redirect with neither code nor
 * error, a redirect off the IdP) leaves the request's fate unknown: a PreconditionError.
 */
export function authorizationAnswer(outcome: AuthorizeResult, what: string): AuthorizationAnswer {
  if (outcome.kind === 'redirect' && outcome.params.code) return { kind: 'code', code: outcome.params.code };
  const how = refusalOf(outcome);
  if (how !== undefined) return { kind: 'refused', how };
  throw new PreconditionError(`${what} ${describeOutcome(outcome)}: neither a code nor a refusal`);
}

/**
 * A refusal shows what the scenario claims only if the same client gets a code for a sound
 * request: run the code flow (with an S256 challenge) as `role`; if that fails too, the refusal
 * had another cause and the scenario cannot judge (a JudgementError: "could not judge: …").
 * `redeem`: the control goes on to redeem the code (for a refusal at the token endpoint).
 */
export async function expectRefusalIsFor(
  ctx: ScenarioContext,
  role: ClientRole,
  refusal: string,
  cause: string,
  options: { redeem?: boolean } = {},
): Promise<void> {
  const sound = options.redeem
    ? 'a sound code flow (an S256 challenge, the code redeemed)'
    : 'a sound request with an S256 challenge';
  try {
    await (options.redeem ? ctx.flows.tokens(role) : ctx.flows.code(role));
  } catch (error) {
    if (!(error instanceof PreconditionError)) throw error;
    throw new JudgementError(
      `the request ${refusal}, but ${sound} failed too (${error.message}), so the refusal cannot be put down to ` +
        `${cause}`,
    );
  }
  ctx.evidence.note(
    `The request ${refusal}; ${sound} ${options.redeem ? 'got tokens' : 'got a code'}, so the refusal was for ` +
      `${cause}.`,
  );
}

/**
 * RFC 6749's rules for a parameter included twice: §3.1's "Request and response parameters MUST NOT be included more
 * than once" binds the request's sender, the client; the server's part is §4.1.2.1's, where a request that "includes
 * a parameter more than once" fails with invalid_request.
 */
export const REPEATED_PARAMETER: Record<'rfc6749_3_1' | 'rfc6749_4_1_2_1', Requirement> = {
  rfc6749_3_1: {
    spec: 'RFC 6749',
    section: '3.1',
    level: 'MUST',
    party: 'client',
    note: 'request parameters MUST NOT be included more than once',
  },
  rfc6749_4_1_2_1: {
    spec: 'RFC 6749',
    section: '4.1.2.1',
    level: 'MUST',
    party: 'server',
    note: 'a request that includes a parameter more than once is invalid_request',
  },
};
