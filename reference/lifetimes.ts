/**
 * How long what the reference issues lives (seconds): codes, access, refresh and ID tokens (first- and
 * third-party), device codes, a pending authorization request and the login session, with the
 * defaults the `lifetimes` option overrides.
 */

export interface Lifetimes {
  /** Seconds. */
  authorizationCode: number;
  accessTokenFirstParty: number;
  accessTokenThirdParty: number;
  refreshTokenFirstParty: number;
  refreshTokenThirdParty: number;
  idToken: number;
  deviceCode: number;
  /** A pending authorization request: from GET /auth to the end of login and consent. */
  interaction: number;
  /** The login session at the IdP (its cookie): prompt, max_age and logout act on it. */
  session: number;
}

export const DEFAULT_LIFETIMES: Lifetimes = {
  authorizationCode: 60,
  accessTokenFirstParty: 3600,
  accessTokenThirdParty: 600,
  refreshTokenFirstParty: 30 * 24 * 3600,
  refreshTokenThirdParty: 24 * 3600,
  idToken: 3600,
  deviceCode: 600,
  interaction: 600,
  session: 8 * 3600,
};

export function resolveLifetimes(lifetimes: Partial<Lifetimes> = {}): Lifetimes {
  return { ...DEFAULT_LIFETIMES, ...lifetimes };
}
