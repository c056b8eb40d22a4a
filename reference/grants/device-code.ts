/**
 * RFC 8628 §3.4–3.5: the device polls the token endpoint with its device_code. Pending:
 * authorization_pending, or slow_down when it polls faster than its interval (which then grows
 * by 5 seconds); denied: access_denied; expired: expired_token; approved: tokens and a refresh
 * token, exactly once (SPEC device states).
 */
import type { ServerContext } from '../context.ts';
import { invalidGrant, invalidRequest, OAuthError } from '../oauth-error.ts';
import { DEVICE_GRANT, type RegisteredClient } from '../options.ts';
import type { DeviceRecord, Successors } from '../store/store.ts';
import type { Grant, TokenResponse } from './grant.ts';
import { consumed, issueUserTokens } from './issue.ts';

/** RFC 8628 §3.5: slow_down adds 5 seconds to the interval, for this and all later polls. */
export const SLOW_DOWN_SECONDS = 5;

/** Network jitter: a device that sends every `interval` seconds may arrive this much early. */
export const POLL_TOLERANCE_MS = 250;

export const deviceCode: Grant = {
  grantType: DEVICE_GRANT,
  // client_id is client authentication, handled by the token endpoint.
  parameters: ['device_code'],
  async handler({ server, client, params }) {
    const code = params.device_code;
    if (code === undefined) throw invalidRequest('device_code is required');
    const record = await server.store.findDevice(code);
    if (!record) {
      if (await server.store.deviceCodeExpired(code))
        throw new OAuthError('expired_token', 'the device code has expired; start again');
      throw invalidGrant('the device code is invalid');
    }
    if (record.clientId !== client.clientId) throw invalidGrant('the device code was issued to another client');
    if (record.status === 'pending') return pending(server, client, record);
    if (record.status === 'denied' && !server.flaws.has('device-denial-ignored')) {
      throw new OAuthError('access_denied', 'the user denied the request');
    }
    if (record.status === 'redeemed') throw invalidGrant('the device code has already been used');
    return redeem(server, client, record);
  },
};

/** Still waiting for the user: pending, or slow_down when the device polls too fast. */
async function pending(server: ServerContext, client: RegisteredClient, record: DeviceRecord): Promise<TokenResponse> {
  const { flaws, store } = server;
  const now = server.now();
  const tooFast =
    record.lastPollAt !== undefined && now - record.lastPollAt < record.interval * 1000 - POLL_TOLERANCE_MS;
  if (tooFast && !flaws.has('device-no-slow-down')) {
    const interval = record.interval + SLOW_DOWN_SECONDS;
    await store.recordDevicePoll(record.deviceCode, now, interval);
    throw new OAuthError('slow_down', `polling too fast; wait ${interval} seconds between requests`);
  }
  await store.recordDevicePoll(record.deviceCode, now, record.interval);
  const user = server.users[0];
  if (!flaws.has('device-tokens-before-approval') || !user) {
    throw new OAuthError('authorization_pending', 'the user has not approved the request yet');
  }
  const authTime = Math.floor(now / 1000);
  return issueUserTokens(server, { client, sub: user.sub, scope: record.scope, grantId: record.grantId, authTime });
}

/** The user decided: the tokens, to exactly one poll. */
async function redeem(server: ServerContext, client: RegisteredClient, record: DeviceRecord): Promise<TokenResponse> {
  const { user } = record;
  if (!user) throw invalidGrant('the device request has no user');
  const grant = { client, sub: user.sub, scope: record.scope, grantId: record.grantId, authTime: user.authTime };
  if (server.flaws.has('device-code-reuse')) return issueUserTokens(server, grant);
  // Atomic: of several polls racing for an approved code, one wins (its tokens saved in the same step); the others see
  // it redeemed.
  const successors: Successors = {};
  const response = await issueUserTokens(server, grant, successors);
  const { deviceCode, status } = record;
  const transition = () => server.store.transitionDevice(deviceCode, status, 'redeemed', undefined, successors);
  if (!(await consumed(server, successors, transition, record)))
    throw invalidGrant('the device code has already been used');
  return response;
}
