/**
 * A store that is down is an outage, not a bug (issue 43), in-process: a store that refuses (as Redis does when it is
 * gone), hangs, or drops its connection under a command. Every answer is 503 with Retry-After in the shape of its
 * endpoint; a code or refresh token is consumed together with its successors or not at all, whichever store call
 * fails (the store failed from the n-th call of a redemption on, for every n); /readyz follows the store; a graceful
 * stop answers every request in flight.
 */
import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createReferenceServer,
  MemoryStore,
  SEEDED_CLIENTS,
  SEEDED_USER,
  type ReferenceOptions,
  type Store,
} from '../../reference/index.ts';
import { postForm, read, type Caller, type RunningReference } from '../support/reference.ts';

const web = SEEDED_CLIENTS.confidential;
const REDIRECT_URI = web.redirectUris[0]!;

/** A store in front of a MemoryStore that the test can take down: refused, hanging, or from the n-th call on. */
function faultyStore() {
  const state = { down: false, hang: false, failAfter: Number.POSITIVE_INFINITY, calls: 0 };
  const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });
  const inner = new MemoryStore();
  const store: Store = new Proxy(inner, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (property === 'close') return Reflect.apply(value, target, args);
        state.calls++;
        if (state.hang) return new Promise(() => {});
        if (state.down || state.calls > state.failAfter) return Promise.reject(refused());
        return Reflect.apply(value, target, args);
      };
    },
  });
  return { store, state };
}

const running: RunningReference[] = [];
afterEach(async () => {
  for (const ref of running.splice(0)) await ref.close();
});

async function start(options: ReferenceOptions = {}) {
  const faulty = faultyStore();
  const server = createReferenceServer({ store: faulty.store, storeTimeoutMs: 300, ...options });
  const { issuer } = await server.listen(0, '127.0.0.1');
  const ref: RunningReference = { server, issuer, url: (path) => `${issuer}${path}`, close: () => server.close() };
  running.push(ref);
  return { ref, server, ...faulty };
}

/** A code as the login would give it, with its verifier. */
async function code(server: ReturnType<typeof createReferenceServer>) {
  const verifier = randomBytes(32).toString('base64url');
  const { code } = await server.testLogin({
    clientId: web.clientId,
    redirectUri: REDIRECT_URI,
    scope: 'openid offline_access',
    codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
    codeChallengeMethod: 'S256',
  });
  return { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier };
}

function expectOutage(result: { status: number; headers: Headers; body: Record<string, unknown> }) {
  expect(result.status).toBe(503);
  expect(result.headers.get('retry-after')).toMatch(/^\d+$/);
  expect(result.body.error).toBe('temporarily_unavailable');
}

/**
 * A token request with the store failing from its n-th call on: 503 (then the store is back and the same request is
 * sent again) or 200; either way the tokens in the end.
 */
async function redeemFailing(
  ref: RunningReference,
  state: ReturnType<typeof faultyStore>['state'],
  n: number,
  params: Record<string, string>,
  caller: Caller,
) {
  state.calls = 0;
  state.failAfter = n;
  const first = await postForm(ref.url('/token'), params, caller);
  state.failAfter = Number.POSITIVE_INFINITY;
  if (first.status !== 200) expectOutage(first);
  const tokens = first.status === 200 ? first : await postForm(ref.url('/token'), params, caller);
  expect(tokens.status, `the store failed after ${n} calls (${params.grant_type}): ${tokens.text}`).toBe(200);
  return { first: first.status, tokens };
}

describe('a store outage', () => {
  it('a redemption failed at any store call: 503 and the code redeemable later, or 200, tokens working', async () => {
    const { ref, server, state } = await start();
    const outcomes: string[] = [];
    for (let n = 0; n <= 4; n++) {
      const { first, tokens } = await redeemFailing(ref, state, n, await code(server), web);
      outcomes.push(`${n}: ${first} then ${tokens.status}`);
      const userinfo = await fetch(ref.url('/userinfo'), {
        headers: { authorization: `Bearer ${tokens.body.access_token}` },
      });
      expect(userinfo.status).toBe(200);

      // The same for the refresh token's rotation.
      const refreshParams = { grant_type: 'refresh_token', refresh_token: String(tokens.body.refresh_token) };
      const rotated = (await redeemFailing(ref, state, n, refreshParams, web)).tokens;
      const again = await postForm(
        ref.url('/token'),
        { ...refreshParams, refresh_token: String(rotated.body.refresh_token) },
        web,
      );
      expect(again.status).toBe(200);
    }
    // Both kinds of answer were seen: the failures came before, and after, the consumption's one store call.
    expect(outcomes.some((o) => o.startsWith('0: 503'))).toBe(true);
    expect(outcomes.some((o) => /: 200 then/.test(o))).toBe(true);
  });

  it('a device code redemption failed at any store call: 503 and redeemable later, or 200', async () => {
    const { ref, server, state } = await start();
    const tv = SEEDED_CLIENTS.device;
    for (let n = 0; n <= 5; n++) {
      const started = await postForm(ref.url('/device/auth'), { scope: 'openid offline_access' }, tv);
      const deviceCode = String(started.body.device_code);
      const user = { sub: SEEDED_USER.sub, authTime: Math.floor(Date.now() / 1000) };
      await server.context.store.transitionDevice(deviceCode, 'pending', 'approved', user);
      const params = { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: deviceCode };
      const { tokens } = await redeemFailing(ref, state, n, params, tv);
      const refresh = { grant_type: 'refresh_token', refresh_token: String(tokens.body.refresh_token) };
      expect((await postForm(ref.url('/token'), refresh, tv)).status).toBe(200);
    }
  });

  it('an answer lost with the connection: the tokens when the consumption was carried out, else 503', async () => {
    const { ref, server, store } = await start({ storeTimeoutMs: 2000 });
    const dropped = () =>
      Object.assign(new Error('Reached the max retries per request limit (which is 0).'), {
        name: 'MaxRetriesPerRequestError',
      });
    const consume = store.consumeCode.bind(store);
    let carryOut = true;
    let unreachableUntil = 0;
    const find = store.findAccessToken.bind(store);
    store.consumeCode = async (...args) => {
      if (carryOut) await consume(...args);
      unreachableUntil = Date.now() + 300;
      throw dropped();
    };
    store.findAccessToken = async (jti) => {
      if (Date.now() < unreachableUntil) throw Object.assign(new Error('gone'), { code: 'ECONNREFUSED' });
      return find(jti);
    };
    const carried = await postForm(ref.url('/token'), await code(server), web);
    expect(carried.status, carried.text).toBe(200);
    expect(carried.body.refresh_token).toEqual(expect.any(String));

    carryOut = false;
    const params = await code(server);
    expectOutage(await postForm(ref.url('/token'), params, web));
    store.consumeCode = consume;
    expect((await postForm(ref.url('/token'), params, web)).status).toBe(200);
  });

  it('503 with Retry-After in the shape of each endpoint, /readyz 503; served again when it is back', async () => {
    const { ref, server, state } = await start();
    const tokens = await postForm(ref.url('/token'), await code(server), web);
    state.down = true;

    expectOutage(await postForm(ref.url('/token'), await freshCodeParams(), web));
    expectOutage(await postForm(ref.url('/introspect'), { token: String(tokens.body.access_token) }, web));
    // The authorization endpoint, the redirect URI known (a seeded client): back to the client (RFC 6749 §4.1.2.1).
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: web.clientId,
      redirect_uri: REDIRECT_URI,
      scope: 'openid',
      state: 'st-1',
    });
    const auth = await fetch(ref.url(`/auth?${query}`), { redirect: 'manual' });
    expect(auth.status).toBe(303);
    const location = new URL(auth.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
    expect(location.searchParams.get('error')).toBe('temporarily_unavailable');
    expect(location.searchParams.get('state')).toBe('st-1');
    // A pushed request must be read from the store before anything is known: an error page, 503.
    const pushed = new URLSearchParams({ client_id: web.clientId, request_uri: 'urn:ietf:params:oauth:request_uri:x' });
    const page = await fetch(ref.url(`/auth?${pushed}`), { redirect: 'manual' });
    expect(page.status).toBe(503);
    expect(page.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(page.headers.get('content-type')).toContain('text/html');
    // The login form's POST: the interaction lives in the store.
    const login = await fetch(ref.url('/interaction/abc/login'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'username=alice&password=x',
    });
    expect(login.status).toBe(503);
    expect(login.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(login.headers.get('content-type')).toContain('text/html');
    // A resource (RFC 6750): 503 without a challenge, so the client keeps its token.
    const userinfo = await read(
      await fetch(ref.url('/userinfo'), { headers: { authorization: `Bearer ${tokens.body.access_token}` } }),
    );
    expectOutage(userinfo);
    expect(userinfo.headers.get('www-authenticate')).toBeNull();

    expect((await fetch(ref.url('/readyz'))).status).toBe(503);
    expect((await fetch(ref.url('/healthz'))).status).toBe(200);
    expect(await (await fetch(ref.url('/readyz'))).json()).toEqual({ status: 'unavailable' });

    state.down = false;
    expect((await fetch(ref.url('/readyz'))).status).toBe(200);
    expect((await postForm(ref.url('/token'), await code(server), web)).status).toBe(200);

    async function freshCodeParams() {
      state.down = false;
      const params = await code(server);
      state.down = true;
      return params;
    }
  });

  it('a store that hangs: 503 within the store timeout, not a request left waiting', async () => {
    const { ref, server, state } = await start({ storeTimeoutMs: 200 });
    const params = await code(server);
    state.hang = true;
    const started = Date.now();
    expectOutage(await postForm(ref.url('/token'), params, web));
    expect(Date.now() - started).toBeLessThan(5000);
    expect((await fetch(ref.url('/readyz'))).status).toBe(503);
  });
});

describe('health, readiness and a graceful stop', () => {
  it('/healthz and /readyz answer at the root and under the issuer path, revealing nothing', async () => {
    const server = createReferenceServer({ issuer: 'http://127.0.0.1:1/tenant' });
    const callback = server.app.callback();
    const { createServer } = await import('node:http');
    const http = createServer(callback);
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const { port } = http.address() as { port: number };
    try {
      for (const path of ['/healthz', '/readyz', '/tenant/healthz', '/tenant/readyz']) {
        const response = await fetch(`http://127.0.0.1:${port}${path}`);
        expect(response.status, path).toBe(200);
        expect(response.headers.get('cache-control')).toBe('no-store');
        expect(await response.json()).toEqual({ status: 'ok' });
      }
      expect((await fetch(`http://127.0.0.1:${port}/readyz`, { method: 'POST' })).status).not.toBe(200);
    } finally {
      http.close();
      await server.close();
    }
  });

  it('stop() answers every request in flight, refuses new connections, reports what a short grace cut', async () => {
    const server = createReferenceServer({ variants: ['slow'], slowMs: 400 });
    const { issuer } = await server.listen(0, '127.0.0.1');
    const machine = SEEDED_CLIENTS.machine;
    const request = () =>
      postForm(`${issuer}/token`, { grant_type: 'client_credentials' }, machine).then(
        (r) => r.status,
        (err: { cause?: { code?: string } }) => err.cause?.code ?? 'error',
      );
    const inFlight = Array.from({ length: 10 }, request);
    await delay(100);
    const stopped = server.stop(5000);
    await delay(50);
    expect(await request()).toBe('ECONNREFUSED');
    expect(await Promise.all(inFlight)).toEqual(Array(10).fill(200));
    expect(await stopped).toEqual({ cut: 0 });

    const short = createReferenceServer({ variants: ['slow'], slowMs: 2000 });
    const listening = await short.listen(0, '127.0.0.1');
    const slow = postForm(`${listening.issuer}/token`, { grant_type: 'client_credentials' }, machine).catch(() => 0);
    await delay(200);
    expect(await short.stop(100)).toEqual({ cut: 1 });
    await slow;
  });
});
