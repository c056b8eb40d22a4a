/** Logout (OIDC RP-Initiated, Back-Channel and Front-Channel Logout): the user's walk to the end-session endpoint. */
import type { LoginSession, ScenarioContext } from '../../harness/scenario/scenario.ts';

/**
 * The user follows a logout request to the end-session endpoint (OIDC RP-Initiated Logout §2), agreeing if asked,
 * never leaving the issuer's origin and never signing in (a login page after the logout is where a logged-out user
 * lands); the walk stops at any of `stopAt` (never loaded).
 */
export function endSessionWalk(
  ctx: ScenarioContext,
  session: LoginSession,
  params: Record<string, string>,
  stopAt: string[],
) {
  const url = new URL(ctx.target.endpoints.endSession!);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return ctx.login.authorize(url.href, stopAt, { session, stayWithin: ctx.target.issuer, signIn: false });
}

/** Whether the end-session walk ended in a redirect to `uri` (its query and fragment aside). */
export function redirectedTo(outcome: { kind: string; url: string }, uri: string): boolean {
  return outcome.kind === 'redirect' && outcome.url.split(/[?#]/)[0] === uri.split(/[?#]/)[0];
}

/**
 * RP-Initiated Logout §3: "if it [id_token_hint] is not supplied with post_logout_redirect_uri, the OP MUST NOT
 * perform post-logout redirection unless the OP has other means of confirming the legitimacy of the post-logout
 * redirection target". The harness cannot see such means (a URI that only one client registers may be one), so a
 * redirect without a hint is judged a warning.
 */
export const NO_HINT_REDIRECT = {
  spec: 'OIDC RP-Initiated Logout',
  section: '3',
  level: 'SHOULD',
  party: 'server',
  note: 'no redirect without id_token_hint unless the OP confirms the target otherwise',
} as const;

/** The confidential client's registered post_logout_redirect_uri; without one the scenario is skipped. */
export function registeredPostLogoutUri(ctx: ScenarioContext): string {
  const registered = ctx.client('confidential').postLogoutRedirectUri;
  if (!registered)
    return ctx.skip(
      'clients.confidential.postLogoutRedirectUri is not configured (a post_logout_redirect_uri registered for ' +
        'the client)',
    );
  return registered;
}
