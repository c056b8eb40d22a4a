/** Scope helpers. */
import type { Target } from '../../harness/scenario/scenario.ts';
import { scopeTokens } from '../../protocol/scope.ts';

/** The scope with `openid` added when absent (for flows that must return an ID token). */
export function withOpenid(scope: string | undefined): string {
  const parts = scopeTokens(scope ?? '');
  return parts.includes('openid') ? parts.join(' ') : ['openid', ...parts].join(' ');
}

/**
 * The scope of a code flow that every authorization server must serve: with `openid` added where the target is an
 * OpenID provider (its ID token is then judged too), as configured on an OAuth 2.0 authorization server, which need
 * not know the openid scope (RFC 6749 §3.3 lets it refuse an unknown scope).
 */
export function codeFlowScope(target: Pick<Target, 'kind'>, scope: string | undefined): string {
  return target.kind.protocol === 'oidc' ? withOpenid(scope) : scopeTokens(scope ?? '').join(' ');
}
