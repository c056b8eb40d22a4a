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
  type ScenarioContext,
  describeOutcome,
} from '../../harness/scenario.ts';

export type AuthorizationAnswer = { kind: 'code'; code: string } | { kind: 'refused'; how: string };

/**
 * A code, or a refusal. An error page counts as a refusal when it is an HTTP error or comes before
 * any login page. Anything else (a login that did not finish, a redirect with neither code nor
 * error, a redirect off the IdP) leaves the request's fate unknown: a PreconditionError.
 */
export function authorizationAnswer(outcome: AuthorizeResult, what: string): AuthorizationAnswer {
  if (outcome.kind === 'redirect') {
    if (outcome.params.code) return { kind: 'code', code: outcome.params.code };
    if (outcome.params.error) return { kind: 'refused', how: describeOutcome(outcome) };
  } else if (
    outcome.location === undefined &&
    (outcome.status >= 400 || outcome.pages.length === 0 || outcome.errorPage === true)
  ) {
    const headline = outcome.headline ? ` "${outcome.headline}"` : '';
    return { kind: 'refused', how: `showed an error page (HTTP ${outcome.status}${headline})` };
  }
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
