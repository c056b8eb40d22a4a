/**
 * The Redis store keeps the Store contract (reference/store/store.ts) across instances: each
 * single-use operation succeeds for exactly one caller even when the callers are separate
 * RedisStore instances (separate connections, as separate servers would have), and records expire.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStore } from '../../reference/index.ts';
import type { DeviceRecord } from '../../reference/store/store.ts';
import { code, refresh } from '../support/store-records.ts';
import { startRedis, type RunningRedis } from '../../scripts/redis-server.ts';

let redis: RunningRedis;
beforeAll(async () => {
  redis = await startRedis();
}, 60_000);
afterAll(async () => {
  await redis?.stop();
});

let prefixes = 0;
/** Two stores on one Redis (two connections, one key space) and a shared fake clock. */
function setup() {
  let clock = 1_000_000;
  const prefix = `t${++prefixes}:`;
  const now = () => clock;
  const a = new RedisStore({ url: redis.url, prefix, now });
  const b = new RedisStore({ url: redis.url, prefix, now });
  return { a, b, now, advance: (ms: number) => (clock += ms), close: async () => Promise.all([a.close(), b.close()]) };
}

const device = (over: Partial<DeviceRecord> = {}): DeviceRecord => ({
  deviceCode: 'd1',
  userCode: 'ABCDEFGH',
  grantId: 'g1',
  clientId: 'tv',
  scope: 'openid',
  status: 'pending',
  interval: 5,
  expiresAt: 1_000_000 + 600_000,
  ...over,
});
const half = <T>(n: number, a: T, b: T) => Array.from({ length: n }, (_, i) => (i % 2 ? a : b));

describe('RedisStore: single use is atomic across instances', () => {
  it('a code is consumed by exactly one of 50 callers on two connections; the replay knows its grant', async () => {
    const { a, b, close } = setup();
    await a.saveCode(code());
    expect((await b.peekCode('c1'))?.sub).toBe('u');
    const results = await Promise.all(half(50, a, b).map((s) => s.consumeCode('c1')));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await a.usedCodeGrant('c1')).toBe('g1');
    expect(await b.peekCode('c1')).toBeUndefined();
    await close();
  });

  it('a refresh token rotates exactly once; the old one reads rotated, the new one active', async () => {
    const { a, b, close } = setup();
    await a.saveRefresh(refresh('r0'));
    const results = await Promise.all(half(50, a, b).map((s, i) => s.rotateRefresh('r0', refresh(`r${i + 1}`))));
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = results.indexOf(true) + 1;
    expect((await b.findRefresh('r0'))?.state).toBe('rotated');
    expect((await a.findRefresh(`r${winner}`))?.state).toBe('active');
    expect(await a.findRefresh(`r${winner === 1 ? 2 : 1}`)).toBeUndefined();
    await close();
  });

  it('a revoked grant revokes its refresh and access tokens and blocks rotation', async () => {
    const { a, b, now, close } = setup();
    await a.saveRefresh(refresh('r0'));
    await a.saveAccessToken({ jti: 'at1', grantId: 'g1', clientId: 'web', expiresAt: now() + 60_000 });
    expect(await b.isAccessTokenActive('at1')).toBe(true);
    await b.revokeGrant('g1', now() + 3_600_000);
    expect((await a.findRefresh('r0'))?.state).toBe('revoked');
    expect(await a.isAccessTokenActive('at1')).toBe(false);
    expect(await a.rotateRefresh('r0', refresh('r1'))).toBe(false);
    await a.saveAccessToken({ jti: 'at2', clientId: 'web', expiresAt: now() + 60_000 });
    await a.revokeAccessToken('at2');
    expect(await b.findAccessToken('at2')).toMatchObject({ revoked: true });
    await a.revokeRefresh('r0');
    expect((await b.findRefresh('r0'))?.state).toBe('revoked');
    await close();
  });

  it('interactions, pushed requests and one-time marks go to exactly one caller', async () => {
    const { a, b, now, close } = setup();
    await a.saveInteraction({
      id: 'i1',
      clientId: 'web',
      redirectUri: 'https://a/cb',
      scope: 'openid',
      expiresAt: now() + 60_000,
    });
    expect((await b.findInteraction('i1'))?.clientId).toBe('web');
    const taken = await Promise.all(half(20, a, b).map((s) => s.consumeInteraction('i1')));
    expect(taken.filter(Boolean)).toHaveLength(1);

    const requestUri = 'urn:ietf:params:oauth:request_uri:x';
    await b.savePushedRequest({ requestUri, clientId: 'web', params: { scope: 'openid' }, expiresAt: now() + 60_000 });
    const pushed = await Promise.all(half(20, a, b).map((s) => s.consumePushedRequest(requestUri)));
    expect(pushed.filter(Boolean)).toEqual([
      { requestUri, clientId: 'web', params: { scope: 'openid' }, expiresAt: now() + 60_000 },
    ]);

    const marks = await Promise.all(half(20, a, b).map((s) => s.markOnce('dpop', 'jti-1', now() + 60_000)));
    expect(marks.filter(Boolean)).toHaveLength(1);
    expect(await a.markOnce('assertion', 'jti-1', now() + 60_000)).toBe(true);

    const grants = Array.from({ length: 20 }, (_, i) => `g${i}`);
    const swapped = await Promise.all(
      half(20, a, b).map((s, i) => s.swapLatest('grant', 'web alice', grants[i]!, now() + 60_000)),
    );
    expect(swapped.filter((v) => v === undefined)).toHaveLength(1);
    expect(new Set(swapped.filter(Boolean)).size).toBe(19);
    await close();
  });

  it('a device request: unique user code, one transition out of pending, polls recorded', async () => {
    const { a, b, advance, close } = setup();
    expect(await a.saveDevice(device())).toBe(true);
    expect(await b.saveDevice(device({ deviceCode: 'd2' }))).toBe(false);
    expect((await b.findDeviceByUserCode('ABCDEFGH'))?.deviceCode).toBe('d1');
    await b.recordDevicePoll('d1', 1_000_500, 10);
    expect(await a.findDevice('d1')).toMatchObject({ lastPollAt: 1_000_500, interval: 10 });
    const user = { sub: 'u', authTime: 7 };
    const approvals = await Promise.all(
      half(20, a, b).map((s) => s.transitionDevice('d1', 'pending', 'approved', user)),
    );
    expect(approvals.filter(Boolean)).toHaveLength(1);
    const redemptions = await Promise.all(half(20, a, b).map((s) => s.transitionDevice('d1', 'approved', 'redeemed')));
    expect(redemptions.filter(Boolean)).toEqual([expect.objectContaining({ status: 'redeemed', user })]);
    expect(await a.deviceCodeExpired('d1')).toBe(false);
    advance(600_000);
    expect(await a.findDevice('d1')).toBeUndefined();
    expect(await b.deviceCodeExpired('d1')).toBe(true);
    await close();
  });
});

describe('RedisStore: expiry and sessions', () => {
  it("records read as absent from their expiresAt on, by the server's clock", async () => {
    const { a, b, now, advance, close } = setup();
    await a.saveCode(code());
    await a.saveRefresh(refresh('r1'));
    await a.saveSession({ id: 's1', sub: 'u', authTime: 1, expiresAt: now() + 1000 });
    await a.saveActivation({ id: 'act', deviceCode: 'd1', expiresAt: now() + 1000 });
    expect((await b.findSession('s1'))?.sub).toBe('u');
    expect((await b.findActivation('act'))?.deviceCode).toBe('d1');
    advance(60_000);
    expect(await b.consumeCode('c1')).toBeUndefined();
    expect(await b.findSession('s1')).toBeUndefined();
    expect(await b.findActivation('act')).toBeUndefined();
    expect(await b.findRefresh('r1')).toBeDefined();
    await a.deleteSession('s1');
    await close();
  });

  it('keys carry a Redis TTL, so Redis evicts them', async () => {
    const store = new RedisStore({ url: redis.url, prefix: 'ttl:' });
    await store.saveCode(code({ expiresAt: Date.now() + 60_000 }));
    const ttl = await store.client.pttl('ttl:code:c1');
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
    await store.close();
  });

  it('a value shared by name: the first writer wins for every caller', async () => {
    const { a, b, close } = setup();
    // Sent at once over two connections, either may reach Redis first: both callers get that one's value.
    const [fromA, fromB] = await Promise.all([a.shared('k', 'one'), b.shared('k', 'two')]);
    expect(fromA).toBe(fromB);
    expect(['one', 'two']).toContain(fromA);
    // One after the other, the first is the first.
    expect(await a.shared('k2', 'three')).toBe('three');
    expect(await b.shared('k2', 'four')).toBe('three');
    await close();
  });

  it('refuses a URL that is not redis://', () => {
    expect(() => new RedisStore({ url: 'http://127.0.0.1:6379' })).toThrow(/redis:\/\//);
  });
});

describe('RedisStore: registered clients (RFC 7591)', () => {
  it('a registration saved by one instance is read by another, deleted once, and expires', async () => {
    const { a, b, now, advance, close } = setup();
    const record = {
      clientId: 'dyn-1',
      clientSecret: 's',
      registrationTokenHash: 'h',
      issuedAt: Math.floor(now() / 1000),
      metadata: { redirect_uris: ['https://rp.example.test/cb'] },
      expiresAt: now() + 60_000,
    };
    await a.saveClientRegistration(record);
    expect(await b.findClientRegistration('dyn-1')).toEqual(record);
    const deleted = await Promise.all(half(10, a, b).map((s) => s.deleteClientRegistration('dyn-1')));
    expect(deleted.filter(Boolean)).toHaveLength(1);
    expect(await a.findClientRegistration('dyn-1')).toBeUndefined();
    await a.saveClientRegistration({ ...record, clientId: 'dyn-2' });
    advance(60_000);
    expect(await b.findClientRegistration('dyn-2')).toBeUndefined();
    await close();
  });
});
