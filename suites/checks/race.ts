/**
 * Races on single-use credentials (a code, a refresh token): the same request N times at once,
 * of which at most one may succeed.
 */
import {
  CheckFailure,
  type HttpResponse,
  PreconditionError,
  type ScenarioContext,
} from '../../harness/scenario/scenario.ts';
import type { Rule } from './oauth.ts';

/** Parallel requests: enough for a check-then-act window to let several through, few enough for any server. */
export const RACE_WIDTH = 8;

/** Rounds of a race, each a burst on a credential of its own: a check-then-act window need not open in every one. */
export const RACE_ROUNDS = 3;

/** A race's answer that issued tokens. */
export const succeeded = (res: HttpResponse): boolean =>
  res.status === 200 && typeof res.body.access_token === 'string';

/**
 * At most one of the parallel answers issued tokens. None at all is allowed too, but only when
 * every answer is the invalid_grant a used credential gets; anything else means the requests
 * never reached the check (a set-up problem, not a verdict). Answers with HTTP 5xx are reported
 * as a warning of their own (with the count), never passed over.
 */
export function expectAtMostOneSuccess(
  ctx: Pick<ScenarioContext, 'warn'>,
  responses: readonly HttpResponse[],
  rule: Rule,
): void {
  const wins = responses.filter(succeeded).length;
  const statuses = responses.map((r) =>
    succeeded(r) ? '200 with tokens' : `${r.status}${typeof r.body.error === 'string' ? ` ${r.body.error}` : ''}`,
  );
  const crashed = responses.filter((r) => r.status >= 500);
  if (crashed.length) {
    ctx.warn(
      `${rule.when}: the target failed with HTTP 5xx in ${crashed.length} of ${responses.length} answers ` +
        `(${statuses.join(', ')}); a server that serialises its single-use check answers each request, with tokens ` +
        `or with an error (RFC 9110 §15.6: 5xx means the server erred).`,
    );
  }
  if (crashed.length === responses.length) {
    throw new PreconditionError(
      `all ${responses.length} parallel requests failed with HTTP 5xx (${statuses.join(', ')}), so the race could ` +
        `not be judged`,
    );
  }
  if (wins > 1) {
    throw new CheckFailure(
      `${rule.when}: ${wins} of ${responses.length} succeeded (${statuses.join(', ')}); ${rule.per.label} allows ` +
        `one use, so at most one may succeed.`,
      { requirement: rule.per, kind: 'accepted' },
    );
  }
  if (
    wins === 0 &&
    !responses.every((r) => r.status >= 500 || (r.status === 400 && r.body.error === 'invalid_grant'))
  ) {
    throw new PreconditionError(
      `none of the ${responses.length} parallel requests succeeded (${statuses.join(', ')}), so the race was not ` +
        `run on a usable credential`,
    );
  }
}

/**
 * RACE_ROUNDS rounds of one race, each a burst of RACE_WIDTH on a fresh credential (`burst(round)` sends it): every
 * round must have at most one winner (expectAtMostOneSuccess). Answers the rounds nobody won, for the caller's
 * control (a race without a winner is a pass only if the credential used alone works).
 */
export async function raceRounds(
  ctx: Pick<ScenarioContext, 'warn'>,
  burst: (round: number) => Promise<readonly HttpResponse[]>,
  rule: (round: number) => Rule,
): Promise<number[]> {
  const empty: number[] = [];
  for (let round = 1; round <= RACE_ROUNDS; round++) {
    const responses = await burst(round);
    expectAtMostOneSuccess(ctx, responses, rule(round));
    if (!responses.some(succeeded)) empty.push(round);
  }
  return empty;
}
