/** Scope helpers. */

/** The scope with `openid` added when absent (for flows that must return an ID token). */
export function withOpenid(scope: string | undefined): string {
  const parts = (scope ?? '').split(/\s+/).filter(Boolean);
  return parts.includes('openid') ? parts.join(' ') : ['openid', ...parts].join(' ');
}
