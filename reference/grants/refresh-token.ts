/**
 * RFC 6749 §6 with rotation (SPEC token rule 2, RFC 9700 §4.14.2): every use returns a new
 * refresh token and retires the old one; a replay of a retired token revokes the whole family;
 * the token is bound to its client; the scope may only narrow.
 */
import type { ServerContext } from '../context.ts';
import { invalidGrant, invalidRequest } from '../oauth-error.ts';
import { isPublicClient, type RegisteredClient } from '../options.ts';
import { grantScope, narrowScope } from '../scopes.ts';
import type { RefreshRecord, StoredRefresh, Successors } from '../store/store.ts';
import { randomToken } from '../tokens.ts';
import { checkRefreshBinding } from '../http/dpop-refresh.ts';
import { currentBinding } from '../http/dpop.ts';
import { grantAudience } from '../http/resource.ts';
import type { Grant } from './grant.ts';
import {
  addRefreshToken,
  checkThenActDelay,
  consumed,
  grantRevocationUntil,
  intermittentlyAtomic,
  issueTokens,
  newRefreshRecord,
  saveSuccessors,
} from './issue.ts';

export const refreshToken: Grant = {
  grantType: 'refresh_token',
  parameters: ['refresh_token', 'scope'],
  async handler({ server, client, params }) {
    const { flaws } = server;
    const token = params.refresh_token;
    if (token === undefined) throw invalidRequest('refresh_token is required');
    const stored = (await server.store.findRefresh(token)) ?? (await unknownToken(server, client, token, params.scope));
    if (stored.state === 'revoked') throw invalidGrant('the refresh token has been revoked');
    const { record } = stored;
    if (stored.state === 'rotated' && !flaws.has('refresh-reuse-allowed')) {
      // The flaw (for public clients, as a retry allowance for browser apps would) revokes the family, then answers
      // the replay with the tokens of a new one, which stay valid.
      if (flaws.has('refresh-replay-mints-valid') && record.clientId === client.clientId && isPublicClient(client))
        return mintAfterReplay(server, client, record);
      await rejectReplay(server, record);
    }
    if (record.clientId !== client.clientId && !flaws.has('refresh-not-client-bound')) {
      throw invalidGrant('the refresh token was issued to another client');
    }
    checkRefreshBinding(server, record);
    // RFC 8707 §2.2: a refresh may narrow the audience to one of the grant's resources, never widen it.
    const audience = grantAudience(server, 'refresh', currentBinding().resource, record.resources);
    const scope =
      params.scope === undefined
        ? record.scope
        : flaws.has('refresh-scope-widen')
          ? grantScope(params.scope, client.allowedScope, flaws)
          : narrowScope(params.scope, record.scope);

    const next = newRefreshRecord(server, {
      client,
      sub: record.sub,
      scope: record.scope,
      grantId: record.grantId,
      authTime: record.authTime,
      ...(record.resources === undefined ? {} : { resources: record.resources }),
    });
    // Minted first, saved with the rotation in one atomic step (Store Successors).
    const successors: Successors = {};
    const response = await issueTokens(
      server,
      {
        client,
        sub: record.sub,
        scope,
        grantId: record.grantId,
        authTime: record.authTime,
        // RFC 6749 §6: without a scope parameter the request asks for the grant's scope.
        requestedScope: params.scope ?? record.scope,
        audience,
      },
      successors,
    );
    response.refresh_token = await rotate(server, stored, next, successors);
    // OIDC Core §12.2: a refresh response "might not contain an id_token"; the variant never sends one.
    if (server.variants.has('refresh-without-id-token')) delete response.id_token;
    return response;
  },
};

/** Retires the presented token in favour of `next`; exactly one use of an active token may win. */
async function rotate(
  server: ServerContext,
  stored: StoredRefresh,
  next: RefreshRecord,
  successors: Successors,
): Promise<string> {
  const { flaws, store } = server;
  const old = stored.record.token;
  if (flaws.has('refresh-not-rotated')) {
    await saveSuccessors(server, successors);
    return old;
  }
  if (flaws.has('race-refresh-intermittent')) {
    const unchecked = async () => {
      if (!(await store.rotateRefresh(old, next, successors)))
        await saveSuccessors(server, { ...successors, refresh: next });
      return next.token;
    };
    return intermittentlyAtomic(server, 'refresh', old, () => rotateOnce(server, stored, next, successors), unchecked);
  }
  return rotateOnce(server, stored, next, successors);
}

/** The atomic rotation: exactly one use of an active token wins; a loser is a replay. */
async function rotateOnce(
  server: ServerContext,
  stored: StoredRefresh,
  next: RefreshRecord,
  successors: Successors,
): Promise<string> {
  const { flaws, store } = server;
  const old = stored.record.token;
  if (flaws.has('race-refresh')) {
    // Check-then-act: the state was read above; yielding before the write lets every racer through.
    await checkThenActDelay();
    if (!(await store.rotateRefresh(old, next, successors)))
      await saveSuccessors(server, { ...successors, refresh: next });
    return next.token;
  }
  if (await consumed(server, successors, () => store.rotateRefresh(old, next, successors), true)) return next.token;
  // Still active when read, retired now: another request used it first. That is a replay too (which the flaw
  // refresh-reuse-allowed lets through, as it lets through one that was rotated out when read).
  if (stored.state === 'active' && !flaws.has('refresh-reuse-allowed')) await rejectReplay(server, stored.record);
  // A rotated-out token let through by refresh-reuse-allowed: nothing left to retire.
  await saveSuccessors(server, { ...successors, refresh: next });
  return next.token;
}

/** RFC 9700 §4.14.2: a retired token was presented again, so the family is revoked. */
async function rejectReplay(server: ServerContext, record: RefreshRecord): Promise<never> {
  if (!server.flaws.has('refresh-family-kept'))
    await server.store.revokeGrant(record.grantId, grantRevocationUntil(server));
  throw invalidGrant('the refresh token has already been used; its token family is revoked');
}

/** The flaw refresh-replay-mints-valid: the replayed token's family revoked, and tokens of a new family issued. */
async function mintAfterReplay(server: ServerContext, client: RegisteredClient, record: RefreshRecord) {
  await server.store.revokeGrant(record.grantId, grantRevocationUntil(server));
  const grant = {
    client,
    sub: record.sub,
    scope: record.scope,
    grantId: randomToken(),
    authTime: record.authTime,
    ...(record.resources === undefined ? {} : { resources: record.resources }),
  };
  const response = await issueTokens(server, grant);
  await addRefreshToken(server, response, grant);
  return response;
}

/** SPEC refresh states: an unknown token is rejected as invalid. */
async function unknownToken(
  server: ServerContext,
  client: RegisteredClient,
  token: string,
  scope: string | undefined,
): Promise<StoredRefresh> {
  const user = server.users[0];
  if (!server.flaws.has('refresh-unknown-accepted') || !user)
    throw invalidGrant('the refresh token is invalid or has expired');
  const record: RefreshRecord = {
    token,
    grantId: randomToken(),
    clientId: client.clientId,
    sub: user.sub,
    scope: scope ?? client.allowedScope,
    authTime: Math.floor(server.now() / 1000),
    expiresAt: server.now() + server.tokens.lifetimesFor(client).refreshToken * 1000,
  };
  // The flaw takes the token as one this server issued, so the rotation below can retire it.
  await server.store.saveRefresh(record);
  return { record, state: 'active' };
}
