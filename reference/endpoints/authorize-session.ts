/**
 * What this browser's login session decides for an authorization request (OIDC Core §3.1.2.1):
 * prompt, max_age and id_token_hint are read and checked with the request (so their errors go to
 * the redirect_uri), then held against the session. prompt=none never shows a page: it answers at
 * once, or with login_required / consent_required (§3.1.2.6).
 */
import type { ServerContext } from '../context.ts';
import { invalidRequest, OAuthError } from '../oauth-error.ts';
import type { Params } from '../http/body.ts';
import { readIdTokenHint, type IdTokenHint } from '../id-token-hint.ts';
import type { RegisteredClient } from '../options.ts';
import type { SessionRecord } from '../store/store.ts';
import { consentedInSession, consentRemembered } from './login-session.ts';

export interface SessionParams {
  none: boolean;
  login: boolean;
  /** prompt=consent: the consent page is shown even where a consent was remembered (variant remember-consent). */
  consent: boolean;
  /** Seconds (max_age). */
  maxAge?: number;
  hint?: IdTokenHint;
}

/** prompt, max_age and id_token_hint, validated. */
export async function readSessionParams(server: ServerContext, params: Params): Promise<SessionParams> {
  const prompts = (params.prompt ?? '').split(' ').filter((value) => value !== '');
  if (prompts.includes('none') && prompts.length > 1)
    throw invalidRequest('prompt=none cannot be combined with other values');
  let maxAge: number | undefined;
  if (params.max_age !== undefined) {
    if (!/^\d{1,10}$/.test(params.max_age)) throw invalidRequest('max_age must be a non-negative number of seconds');
    maxAge = Number(params.max_age);
  }
  let hint: IdTokenHint | undefined;
  // The flaw drops the hint unread: neither its signature nor its user is ever looked at.
  if (params.id_token_hint !== undefined && !server.flaws.has('id-token-hint-ignored')) {
    hint = await readIdTokenHint(server, params.id_token_hint);
    if (!hint) throw invalidRequest('id_token_hint is not an ID token issued by this server');
  }
  return {
    none: prompts.includes('none'),
    login: prompts.includes('login'),
    consent: prompts.includes('consent'),
    ...(maxAge === undefined ? {} : { maxAge }),
    ...(hint ? { hint } : {}),
  };
}

export type SessionDecision =
  /** Show the login page. */
  | { kind: 'login' }
  /** Signed in by the session; the consent page comes next. */
  | { kind: 'consent'; session: SessionRecord }
  /** Signed in and consented: answer the client at once. */
  | { kind: 'answer'; session: SessionRecord };

/**
 * The session (if any) decides whether the user must log in. `needsConsent` is the client's
 * consent rule (SPEC first/third-party), unchanged by sessions except that prompt=none may use a
 * consent given earlier in the same session.
 */
export function sessionDecision(
  server: ServerContext,
  client: RegisteredClient,
  scope: string,
  params: SessionParams,
  session: SessionRecord | undefined,
  needsConsent: boolean,
): SessionDecision {
  const { flaws } = server;
  if (params.none && flaws.has('prompt-none-ignored')) throw new OAuthError('login_required', 'the user must sign in');
  const usable =
    session !== undefined && server.userBySub(session.sub) !== undefined && sessionSatisfies(server, params, session);
  if (params.none) {
    if (!usable) {
      if (flaws.has('prompt-none-shows-page')) return { kind: 'login' };
      throw new OAuthError('login_required', 'the user must sign in');
    }
    const remembered = consentRemembered(server, session.sub, client.clientId, scope);
    if (needsConsent && !remembered && !consentedInSession(session, client.clientId, scope)) {
      throw new OAuthError('consent_required', 'the user has not consented to this request');
    }
    return { kind: 'answer', session };
  }
  if (!usable) return { kind: 'login' };
  const ask = needsConsent && (params.consent || !consentRemembered(server, session.sub, client.clientId, scope));
  return ask ? { kind: 'consent', session } : { kind: 'answer', session };
}

/** Whether the session may sign the user in for this request without a new login. */
function sessionSatisfies(server: ServerContext, params: SessionParams, session: SessionRecord): boolean {
  const { flaws } = server;
  // prompt=login: the user must authenticate again, whatever the session.
  if (params.login && !flaws.has('prompt-login-ignored')) return false;
  // max_age: a login older than this must be repeated; max_age=0 is prompt=login.
  if (params.maxAge !== undefined && !flaws.has('max-age-ignored')) {
    const elapsed = Math.floor(server.now() / 1000) - session.authTime;
    if (params.maxAge === 0 || elapsed > params.maxAge) return false;
  }
  // id_token_hint names the user the client expects: another user's session never answers for it.
  if (params.hint && params.hint.sub !== session.sub) return false;
  return true;
}
