/** Tokens with a refresh token, for the scenarios that use or revoke one. */
import type { ClientRole, CodeResult, ScenarioContext, TokenSet } from '../../harness/scenario/scenario.ts';
import { codeFlowScope } from './scope.ts';
import { hasScopeToken } from '../../protocol/scope.ts';

/**
 * The code flow as `role` with its configured scope (and openid from an OpenID provider). With offline_access in it,
 * prompt=consent is sent too: OIDC Core §11 lets the server ignore offline_access otherwise.
 * `request.scope` is the scope asked for.
 */
export function offlineCodeFlow(ctx: ScenarioContext, role: ClientRole): Promise<CodeResult & { tokens: TokenSet }> {
  const scope = codeFlowScope(ctx.target, ctx.client(role).scope);
  const offline = hasScopeToken(scope, 'offline_access');
  return ctx.flows.tokens(role, { scope, ...(offline ? { params: { prompt: 'consent' } } : {}) });
}

/** offlineCodeFlow, skipped when no refresh token comes back (naming the scope asked for). */
export async function tokensWithRefreshToken(
  ctx: ScenarioContext,
  role: ClientRole,
): Promise<CodeResult & { tokens: TokenSet & { refresh_token: string } }> {
  const result = await offlineCodeFlow(ctx, role);
  const refresh = result.tokens.refresh_token;
  if (typeof refresh !== 'string' || !refresh) {
    const scope = result.request.scope ?? '';
    const hint = hasScopeToken(scope, 'offline_access')
      ? ' (with prompt=consent)'
      : `; add offline_access to clients.${role}.scope if the target issues refresh tokens for it`;
    return ctx.skip(`the code flow as ${role} with scope "${scope}" returned no refresh token${hint}`);
  }
  return { ...result, tokens: { ...result.tokens, refresh_token: refresh } };
}
