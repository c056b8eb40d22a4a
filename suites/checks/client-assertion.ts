/**
 * Probing private_key_jwt: each wrong assertion goes with a real, unredeemed code, so that only
 * the client authentication can make the difference; afterwards a sound assertion must redeem the
 * same code (or, if the server spent it on a failed attempt, a fresh one), which proves the
 * refusals were about the assertions.
 */
import type { Client, CodeResult, HttpResponse, ScenarioContext } from '../../harness/scenario/scenario.ts';
import { dpopExpected, dpopKey, redeem, tokensOf } from './modern.ts';

export function redeemWithAssertion(
  ctx: ScenarioContext,
  client: Client,
  code: CodeResult,
  assertion: string | undefined,
  label: string,
): Promise<HttpResponse> {
  return redeem(ctx, client, code, dpopExpected(ctx) ? dpopKey(ctx) : undefined, label, assertion);
}

export const tokenIssued = (res: HttpResponse): boolean =>
  res.status === 200 && typeof res.body.access_token === 'string';

/** A sound assertion redeems `code` (or a fresh code): the set-up the refusals are judged against. */
export async function provesSoundAssertionWorks(ctx: ScenarioContext, client: Client, code: CodeResult): Promise<void> {
  let res = await redeemWithAssertion(ctx, client, code, undefined, 'token request with a sound client assertion');
  if (!tokenIssued(res))
    res = await redeemWithAssertion(
      ctx,
      client,
      await ctx.flows.code(client.role),
      undefined,
      'token request with a sound client assertion (fresh code)',
    );
  tokensOf(res, `private_key_jwt as ${client.role} with a sound assertion`);
}
