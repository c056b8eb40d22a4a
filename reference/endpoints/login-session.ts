/**
 * The login session at the IdP: a cookie holding the id of a SessionRecord in the Store. It is
 * what prompt, max_age and id_token_hint (OIDC Core §3.1.2.1) and RP-Initiated Logout act on.
 * Consent given in a session is remembered for prompt=none (OIDC Core §3.1.2.6 consent_required).
 */
import type { Context } from 'koa';
import type { ServerContext } from '../context.ts';
import { cookieValue } from '../http/cookies.ts';
import type { SessionRecord } from '../store/store.ts';
import { parseScope } from '../scopes.ts';
import { randomToken } from '../tokens.ts';

const COOKIE = 'idpc_session';

function setSessionCookie(ctx: Context, server: ServerContext, value: string, maxAge: number): void {
  const url = new URL(server.issuer);
  const secure = url.protocol === 'https:' ? '; Secure' : '';
  ctx.append(
    'Set-Cookie',
    `${COOKIE}=${value}; Path=${url.pathname}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure}`,
  );
}

/** The live session of this browser, if any. */
export async function currentSession(ctx: Context, server: ServerContext): Promise<SessionRecord | undefined> {
  const id = cookieValue(ctx, COOKIE);
  return id === undefined ? undefined : server.store.findSession(id);
}

/** A new login: a new session (replacing this browser's old one), its cookie set on the response. */
export async function startSession(
  ctx: Context,
  server: ServerContext,
  sub: string,
  authTime: number,
): Promise<SessionRecord> {
  const old = cookieValue(ctx, COOKIE);
  if (old !== undefined) await server.store.deleteSession(old);
  const record: SessionRecord = {
    id: randomToken(),
    sub,
    authTime,
    sid: randomToken(),
    expiresAt: server.now() + server.lifetimes.session * 1000,
  };
  await server.store.saveSession(record);
  // The single-session variant: this sign-in ends the user's other session (Keycloak's user session count limiter,
  // at most one, terminate oldest). Each sign-in replaces the latest, so no user has more than one.
  if (server.variants.has('single-session')) {
    const other = await server.store.swapLatest('session', sub, record.id, record.expiresAt);
    if (other !== undefined && other !== record.id) await server.store.deleteSession(other);
  }
  setSessionCookie(ctx, server, record.id, server.lifetimes.session);
  return record;
}

/** Ends this browser's session: deleted from the Store, its cookie cleared. */
export async function endSession(ctx: Context, server: ServerContext, session: SessionRecord): Promise<void> {
  await server.store.deleteSession(session.id);
  setSessionCookie(ctx, server, '', 0);
}

/** Whether the user consented to every scope of `scope` for the client in this session. */
export function consentedInSession(session: SessionRecord, clientId: string, scope: string): boolean {
  const given = session.consents?.[clientId];
  if (given === undefined) return false;
  const granted = new Set(parseScope(given));
  return parseScope(scope).every((token) => granted.has(token));
}

/** Remembers a consent in the session of `sub` that this browser holds (if it still holds one). */
export async function rememberConsent(
  ctx: Context,
  server: ServerContext,
  sub: string,
  clientId: string,
  scope: string,
): Promise<void> {
  const session = await currentSession(ctx, server);
  if (!session || session.sub !== sub) return;
  const before = session.consents?.[clientId];
  const merged = [...new Set([...parseScope(before ?? ''), ...parseScope(scope)])].join(' ');
  await server.store.saveSession({ ...session, consents: { ...session.consents, [clientId]: merged } });
}

/**
 * Records that `clientId` got an authorization response in session `sessionId` (a logout notifies it: OIDC
 * Back-Channel Logout §2.7, Front-Channel Logout §4); returns the session's sid, if the session is still alive.
 */
export async function rememberClient(
  server: ServerContext,
  sessionId: string | undefined,
  clientId: string,
): Promise<string | undefined> {
  const session = sessionId === undefined ? undefined : await server.store.findSession(sessionId);
  if (!session) return undefined;
  if (!session.clients?.includes(clientId))
    await server.store.saveSession({ ...session, clients: [...(session.clients ?? []), clientId] });
  return session.sid;
}

/**
 * Variant remember-consent: the consents each user gave each client, kept for the server's life (Ory Hydra's
 * `remember`, Spring Authorization Server's OAuth2AuthorizationConsentService), keyed by user and client.
 */
const rememberedConsents = new WeakMap<object, Map<string, Set<string>>>();

function consentsOf(server: ServerContext): Map<string, Set<string>> {
  const consents = rememberedConsents.get(server) ?? new Map<string, Set<string>>();
  rememberedConsents.set(server, consents);
  return consents;
}

/** Whether `sub` consented earlier to every scope of `scope` for the client (only with variant remember-consent). */
export function consentRemembered(server: ServerContext, sub: string, clientId: string, scope: string): boolean {
  if (!server.variants.has('remember-consent')) return false;
  const given = consentsOf(server).get(JSON.stringify([sub, clientId]));
  return given !== undefined && parseScope(scope).every((token) => given.has(token));
}

/** Keeps a consent for later requests of the client (only with variant remember-consent). */
export function keepConsent(server: ServerContext, sub: string, clientId: string, scope: string): void {
  if (!server.variants.has('remember-consent')) return;
  const key = JSON.stringify([sub, clientId]);
  consentsOf(server).set(key, new Set([...(consentsOf(server).get(key) ?? []), ...parseScope(scope)]));
}
