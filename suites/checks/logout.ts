/** Logout (OIDC RP-Initiated, Back-Channel and Front-Channel Logout): the user's walk to the end-session endpoint. */
import type { LoginSession, ScenarioContext } from '../../harness/scenario.ts';

/**
 * The user follows a logout request to the end-session endpoint (OIDC RP-Initiated Logout §2), agreeing if asked,
 * never leaving the issuer's origin; the walk stops at any of `stopAt` (never loaded).
 */
export function endSessionWalk(
  ctx: ScenarioContext,
  session: LoginSession,
  params: Record<string, string>,
  stopAt: string[],
) {
  const url = new URL(ctx.target.endpoints.endSession!);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return ctx.login.authorize(url.href, stopAt, { session, stayWithin: ctx.target.issuer });
}
