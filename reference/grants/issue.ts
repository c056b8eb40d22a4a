/** Issuing the tokens of a grant: access token, ID token for openid, and new refresh tokens. */
import { setTimeout as delay } from 'node:timers/promises';
import type { ServerContext } from '../context.ts';
import { STORE_TIMEOUT_MS, StoreUnavailableError } from '../store/outage.ts';
import { currentBinding } from '../http/dpop.ts';
import { clientEnables, isPublicClient, type RegisteredClient } from '../options.ts';
import { hasScope, parseScope } from '../scopes.ts';
import { requestedClaimValues } from '../claims-request.ts';
import type { AccessTokenRecord, RefreshRecord, RequestedClaims, Successors } from '../store/store.ts';
import { randomToken, type ActClaim } from '../tokens.ts';
import type { TokenResponse } from './grant.ts';

export interface Issuance {
  client: RegisteredClient;
  /** The user's sub, or the client_id when no user is involved (RFC 9068 §2.2). */
  sub: string;
  scope: string;
  /** The grant the tokens belong to (revoked together); absent for client_credentials. */
  grantId?: string;
  /** Epoch seconds of the user's login; needed for an ID token. */
  authTime?: number;
  nonce?: string;
  /** The login session's sid (OIDC Back-Channel Logout §2.1), for the ID token. */
  sid?: string;
  /** Token exchange (RFC 8693 §4.1): who acts on behalf of `sub`. */
  act?: ActClaim;
  /** The claims request parameter's claims (OIDC Core §5.5). */
  claims?: RequestedClaims;
  /** The code issued with the tokens at the authorization endpoint (hybrid): the ID token's c_hash. */
  code?: string;
  /** Issued at the authorization endpoint (implicit and hybrid), not by the token endpoint. */
  frontChannel?: boolean;
  /** Issued by the token endpoint for the code of a hybrid response (OIDC Core §3.3.3.6). */
  hybridCode?: boolean;
  /**
   * The scope the client asked for in this grant's request (the authorization request's for a code); undefined when it
   * asked for none. Equal to `scope`, the token-scope-omitted variant leaves the scope out (RFC 6749 §5.1).
   */
  requestedScope?: string;
  /**
   * RFC 8707 §2.2: the access token's audience as the grant decided it (http/resource.ts grantAudience; undefined: the
   * default). Absent: the token request's resource, as the token endpoint bound it.
   */
  audience?: string | undefined;
  /** RFC 8707 §2.1: the resources of the grant's authorization request, kept by its refresh tokens. */
  resources?: string[];
}

/**
 * Mints the access token (recorded in the store) and, for openid with a user, the ID token. With `successors`, the
 * access token's record is put there instead, for the caller to save with the code or token it consumes.
 */
export async function issueTokens(
  server: ServerContext,
  issuance: Issuance,
  successors?: Successors,
): Promise<TokenResponse> {
  const { client, sub, scope, grantId, act } = issuance;
  // RFC 9449 §6 (cnf.jkt) and RFC 8707 §2.2 (aud): set by the token endpoint for this request.
  const { jkt, resource: bound } = currentBinding();
  const resource = Object.hasOwn(issuance, 'audience') ? issuance.audience : bound;
  const user = server.userBySub(sub);
  const access = await server.tokens.accessToken({
    client,
    sub,
    scope,
    ...(act === undefined ? {} : { act }),
    ...(jkt === undefined ? {} : { jkt }),
    ...(resource === undefined ? {} : { audience: resource }),
    ...(user === undefined ? {} : { user }),
  });
  const accessRecord: AccessTokenRecord = {
    jti: access.jti,
    clientId: client.clientId,
    expiresAt: access.expiresAt,
    ...(grantId === undefined ? {} : { grantId }),
    ...(issuance.claims?.userinfo === undefined ? {} : { userinfoClaims: issuance.claims.userinfo }),
  };
  if (successors) successors.accessToken = accessRecord;
  else await server.store.saveAccessToken(accessRecord);
  const response: TokenResponse = {
    access_token: access.token,
    // RFC 6749 §5.1, §7.1: the type is case insensitive; the lowercase-bearer variant answers as some products do.
    token_type: jkt !== undefined ? 'DPoP' : server.variants.has('lowercase-bearer') ? 'bearer' : 'Bearer',
    expires_in: access.expiresIn,
    scope,
  };
  if (hasScope(scope, 'openid') && user && issuance.authTime !== undefined && !server.options.oauthOnly) {
    response.id_token = await server.tokens.idToken({
      client,
      user,
      scope,
      authTime: issuance.authTime,
      accessToken: access.token,
      ...(issuance.claims?.idToken === undefined
        ? {}
        : { requested: requestedClaimValues(user, issuance.claims.idToken) }),
      ...(issuance.nonce === undefined ? {} : { nonce: issuance.nonce }),
      ...(issuance.sid === undefined ? {} : { sid: issuance.sid }),
      ...(issuance.code === undefined ? {} : { code: issuance.code }),
      ...(issuance.frontChannel ? { frontChannel: true } : {}),
      ...(issuance.hybridCode ? { hybridCode: true } : {}),
    });
  }
  // RFC 6749 §5.1: token_type is REQUIRED; the flaw leaves it out of a Bearer token's response (a DPoP-bound one keeps
  // its token_type DPoP, which RFC 9449 §5 asks for and dpop.token-bound judges: one flaw, one rule).
  if (server.variants.has('token-scope-omitted') && sameScope(issuance.requestedScope, scope)) delete response.scope;
  if (server.flaws.has('token-type-missing') && response.token_type !== 'DPoP') delete response.token_type;
  return response;
}

/** Whether the scope requested (if any) is the one granted, token for token in any order (RFC 6749 §3.3). */
function sameScope(requested: string | undefined, granted: string): boolean {
  if (requested === undefined) return false;
  const asked = new Set(parseScope(requested));
  const given = parseScope(granted);
  return asked.size === given.length && given.every((token) => asked.has(token));
}

/** issueTokens for a user's grant, plus a refresh token when the client may use the refresh_token grant. */
export async function issueUserTokens(
  server: ServerContext,
  issuance: Issuance & { grantId: string; authTime: number },
  successors?: Successors,
): Promise<TokenResponse> {
  const response = await issueTokens(server, issuance, successors);
  if (clientEnables(issuance.client, 'refresh_token')) {
    await addRefreshToken(server, response, issuance, successors);
  }
  return response;
}

/** A new refresh token record for a grant; the caller saves or rotates it in. */
export function newRefreshRecord(server: ServerContext, grant: RefreshGrant): RefreshRecord {
  // RFC 9449 §5: a public client's refresh token is bound to the DPoP key it was issued with.
  const { jkt } = currentBinding();
  return {
    ...(jkt !== undefined && isPublicClient(grant.client) ? { jkt } : {}),
    token: randomToken(),
    grantId: grant.grantId,
    clientId: grant.client.clientId,
    sub: grant.sub,
    scope: grant.scope,
    authTime: grant.authTime,
    ...(grant.resources === undefined ? {} : { resources: grant.resources }),
    expiresAt: server.now() + server.tokens.lifetimesFor(grant.client).refreshToken * 1000,
  };
}

/** What a refresh token of a grant is made from. */
type RefreshGrant = {
  client: RegisteredClient;
  sub: string;
  scope: string;
  grantId: string;
  authTime: number;
  resources?: string[];
};

/** Issues a new refresh token of the grant: saved in the store (or put in `successors`) and added to the response. */
export async function addRefreshToken(
  server: ServerContext,
  response: TokenResponse,
  grant: RefreshGrant,
  successors?: Successors,
): Promise<void> {
  const refresh = newRefreshRecord(server, grant);
  if (successors) successors.refresh = refresh;
  else await server.store.saveRefresh(refresh);
  response.refresh_token = refresh.token;
}

/** Saves successors that no consumption took along (the planted flaws' non-atomic paths). */
export async function saveSuccessors(server: ServerContext, { accessToken, refresh }: Successors): Promise<void> {
  if (accessToken) await server.store.saveAccessToken(accessToken);
  if (refresh) await server.store.saveRefresh(refresh);
}

/**
 * A consumption (code redemption, refresh rotation) that saves `successors` with it. When the store's connection
 * dropped after the command was sent, the store may have carried it out unanswered: then the client's retry would be
 * a replay (refused, the grant revoked) although it never had the tokens. So, within the store timeout, wait for the
 * store to answer again and look for the successors' access-token record (its jti is this request's own): there, the
 * consumption happened and `carriedOut` is its result (the tokens go to the client, once); absent, it did not (the
 * outage answer stands, and the retry redeems). Undecided by the timeout: the outage answer stands.
 */
export async function consumed<T>(
  server: ServerContext,
  successors: Successors,
  consume: () => Promise<T>,
  carriedOut: T,
): Promise<T> {
  try {
    return await consume();
  } catch (err) {
    const jti = successors.accessToken?.jti;
    if (!(err instanceof StoreUnavailableError) || !err.lostWithConnection || jti === undefined) throw err;
    const deadline = Date.now() + (server.options.storeTimeoutMs ?? STORE_TIMEOUT_MS);
    while (Date.now() < deadline) {
      await delay(100);
      try {
        if (await server.store.findAccessToken(jti)) return carriedOut;
        throw err;
      } catch (again) {
        if (!(again instanceof StoreUnavailableError) || again === err) throw again;
      }
    }
    throw err;
  }
}

/** How long a revocation of a grant must be remembered: as long as any of its tokens may live. */
export function grantRevocationUntil(server: ServerContext): number {
  const l = server.lifetimes;
  const longest = Math.max(
    l.accessTokenFirstParty,
    l.accessTokenThirdParty,
    l.refreshTokenFirstParty,
    l.refreshTokenThirdParty,
  );
  return server.now() + longest * 1000;
}

/**
 * The pause inside the check-then-act of the race-code and race-refresh flaws: long enough
 * for concurrent requests for the same code or token to pass the check before any of them acts.
 */
export const checkThenActDelay = () => delay(25);

/** Per server and kind of credential: those in use now, those that met concurrent uses, and those let through. */
const contention = new WeakMap<
  ServerContext,
  Map<string, { inUse: Set<string>; met: Set<string>; leaky: Set<string> }>
>();

/**
 * The flaws race-code-intermittent and race-refresh-intermittent: every use of a credential pauses between its check
 * and its act (checkThenActDelay), so that concurrent uses meet; of the credentials of a kind that meet concurrent
 * uses, the second of every three is used without the atomic step (`unchecked`: every racer gets through), the others
 * with it (`atomic`). Per server, so which race lets several through is the same in every run.
 */
export async function intermittentlyAtomic<T>(
  server: ServerContext,
  kind: string,
  credential: string,
  atomic: () => Promise<T>,
  unchecked: () => Promise<T>,
): Promise<T> {
  const kinds = contention.get(server) ?? new Map();
  contention.set(server, kinds);
  const state = kinds.get(kind) ?? { inUse: new Set<string>(), met: new Set<string>(), leaky: new Set<string>() };
  kinds.set(kind, state);
  if (state.inUse.has(credential) && !state.met.has(credential)) {
    state.met.add(credential);
    if (state.met.size % 3 === 2) state.leaky.add(credential);
  }
  state.inUse.add(credential);
  try {
    await checkThenActDelay();
    return await (state.leaky.has(credential) ? unchecked() : atomic());
  } finally {
    state.inUse.delete(credential);
  }
}
