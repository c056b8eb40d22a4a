/** Getting a refresh token to test with, and using one (RFC 6749 §6). */
import {
  type ClientRole,
  GRANT,
  type HttpResponse,
  type Params,
  PreconditionError,
  type ScenarioContext,
  type Target,
  type TokenSet,
} from '../../harness/scenario/scenario.ts';
import { parseScope } from '../../generators/scope.ts';
import { describeResponse } from './oauth.ts';
import { codeFlowScope } from './scope.ts';

export type RefreshableTokens = TokenSet & { refresh_token: string };

/**
 * `scope` plus offline_access when the target advertises it (OIDC Core §11: how an OpenID client
 * asks for a refresh token), with openid on an OpenID provider, which offline_access belongs to there; an OAuth 2.0
 * authorization server that lists offline_access gets it as one of its own scopes, without openid, which it need not
 * know (RFC 6749 §3.3).
 */
export function offlineScope(target: Target, scope: readonly string[]): string[] {
  const supported = target.discovery?.scopes_supported;
  if (scope.includes('offline_access') || !Array.isArray(supported) || !supported.includes('offline_access'))
    return [...scope];
  return parseScope(codeFlowScope(target, [...scope, 'offline_access'].join(' ')));
}

/**
 * The code flow as `role`, asking for a refresh token: the client's scope (or `scope`) with
 * offline_access, and prompt=consent, which OIDC Core §11 requires for offline_access.
 */
export async function tokensAskingRefresh(
  ctx: ScenarioContext,
  role: ClientRole,
  scope?: readonly string[],
): Promise<{ tokens: TokenSet; scope: string[] }> {
  const wanted = offlineScope(ctx.target, scope ?? parseScope(ctx.client(role).scope));
  const { tokens } = await ctx.flows.tokens(role, {
    scope: wanted.join(' '),
    ...(wanted.includes('offline_access') ? { params: { prompt: 'consent' } } : {}),
  });
  return { tokens, scope: wanted };
}

/**
 * tokensAskingRefresh, for a scenario that needs the refresh token: a target that issues none is
 * skipped (RFC 6749 leaves issuing refresh tokens to the server).
 */
export async function tokensWithRefresh(
  ctx: ScenarioContext,
  role: ClientRole,
  scope?: readonly string[],
): Promise<{ tokens: RefreshableTokens; scope: string[] }> {
  const { tokens, scope: wanted } = await tokensAskingRefresh(ctx, role, scope);
  if (typeof tokens.refresh_token !== 'string' || !tokens.refresh_token) {
    ctx.skip(
      `the ${role} client got no refresh token from the code flow (scope "${wanted.join(' ')}"), so there is ` +
        `none to test`,
    );
  }
  return { tokens: tokens as RefreshableTokens, scope: wanted };
}

/** A refresh_token grant request as `role`. */
export function refresh(
  ctx: ScenarioContext,
  role: ClientRole,
  refreshToken: string,
  extra: Params = {},
  label?: string,
): Promise<HttpResponse> {
  return ctx.http.token(
    ctx.client(role),
    { grant_type: GRANT.refresh, refresh_token: refreshToken, ...extra },
    {
      label: label ?? `refresh_token as ${role}`,
    },
  );
}

/** A sound refresh (a control): a live `refreshToken` of `role` gets new tokens; else a PreconditionError. */
export async function refreshWorks(ctx: ScenarioContext, role: ClientRole, refreshToken: string): Promise<void> {
  const res = await refresh(ctx, role, refreshToken, {}, `refresh_token as ${role}, with a live token (control)`);
  if (res.status !== 200 || typeof res.body.access_token !== 'string')
    throw new PreconditionError(`refreshing as ${role} got ${describeResponse(res)} instead of new tokens`);
}

/**
 * Set-up: one refresh that rotates `refreshToken` out; returns the new tokens. A target that does
 * not rotate leaves no rotated-out token to test with (skipped: refresh.rotation judges that).
 */
export async function rotateOnce(
  ctx: ScenarioContext,
  role: ClientRole,
  refreshToken: string,
): Promise<RefreshableTokens> {
  const res = await refresh(
    ctx,
    role,
    refreshToken,
    {},
    `refresh_token as ${role} (rotating the first refresh token out)`,
  );
  if (res.status !== 200 || typeof res.body.access_token !== 'string') {
    // Refused with an OAuth error: the refresh itself is refresh.rotation's to judge; here no token is rotated out, so
    // there is no premise (a server error, or an answer that is no OAuth error, stays a set-up problem).
    if (res.status >= 400 && res.status < 500 && typeof res.body.error === 'string')
      ctx.skip(
        `refreshing as ${role} was refused (${describeResponse(res)}; refresh.rotation reports that), so no refresh ` +
          `token has been rotated out`,
      );
    throw new PreconditionError(`refreshing as ${role} got ${describeResponse(res)} instead of new tokens`);
  }
  const next = res.body as TokenSet;
  if (typeof next.refresh_token !== 'string' || !next.refresh_token || next.refresh_token === refreshToken) {
    ctx.skip(
      `the target does not rotate the ${role} client's refresh tokens (refresh.rotation reports that), so none has ` +
        `been rotated out`,
    );
  }
  return next as RefreshableTokens;
}
