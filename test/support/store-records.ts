/** Store records for the Store contract tests (in-memory and Redis): a code and a refresh token of one grant. */
import type { CodeRecord, RefreshRecord } from '../../reference/store/store.ts';

export const code = (over: Partial<CodeRecord> = {}): CodeRecord => ({
  code: 'c1',
  grantId: 'g1',
  clientId: 'web',
  redirectUri: 'https://a/cb',
  sub: 'u',
  scope: 'openid',
  authTime: 1,
  expiresAt: 1_000_000 + 60_000,
  ...over,
});

export const refresh = (token: string, over: Partial<RefreshRecord> = {}): RefreshRecord => ({
  token,
  grantId: 'g1',
  clientId: 'web',
  sub: 'u',
  scope: 'openid',
  authTime: 1,
  expiresAt: 1_000_000 + 3_600_000,
  ...over,
});
