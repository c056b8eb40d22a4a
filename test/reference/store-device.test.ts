import { afterEach, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../reference/index.ts';
import type { DeviceRecord } from '../../reference/store/store.ts';

let clock = 1_000_000;
const stores: MemoryStore[] = [];
function newStore(): MemoryStore {
  const store = new MemoryStore({ now: () => clock, usedCodeRetentionMs: 60_000 });
  stores.push(store);
  return store;
}
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

const device = (over: Partial<DeviceRecord> = {}): DeviceRecord => ({
  deviceCode: 'dc-1',
  userCode: 'BCDFGHJK',
  grantId: 'g-1',
  clientId: 'tv-device',
  scope: 'openid',
  status: 'pending',
  interval: 5,
  expiresAt: clock + 10_000,
  ...over,
});
const alice = { sub: 'user-0001-alice', authTime: 1000 };

describe('MemoryStore: device requests', () => {
  it('finds a request by device code and by user code, as copies', async () => {
    const store = newStore();
    expect(await store.saveDevice(device())).toBe(true);
    const found = await store.findDevice('dc-1');
    expect(found).toMatchObject({ userCode: 'BCDFGHJK', status: 'pending' });
    found!.status = 'approved';
    expect((await store.findDeviceByUserCode('BCDFGHJK'))?.status).toBe('pending');
    expect(await store.findDevice('nope')).toBeUndefined();
    expect(await store.findDeviceByUserCode('ZZZZZZZZ')).toBeUndefined();
  });

  it('refuses a user code a live request holds, and frees it at expiry', async () => {
    const store = newStore();
    await store.saveDevice(device());
    expect(await store.saveDevice(device({ deviceCode: 'dc-2' }))).toBe(false);
    expect(await store.findDevice('dc-2')).toBeUndefined();
    clock += 10_000;
    expect(await store.saveDevice(device({ deviceCode: 'dc-2' }))).toBe(true);
    expect((await store.findDeviceByUserCode('BCDFGHJK'))?.deviceCode).toBe('dc-2');
  });

  it('records polls: the time and the interval', async () => {
    const store = newStore();
    await store.saveDevice(device());
    await store.recordDevicePoll('dc-1', clock, 10);
    expect(await store.findDevice('dc-1')).toMatchObject({ lastPollAt: clock, interval: 10 });
  });

  it('transitions from the expected status only, and to exactly one of racing callers', async () => {
    const store = newStore();
    await store.saveDevice(device());
    expect(await store.transitionDevice('dc-1', 'approved', 'redeemed')).toBeUndefined();
    const decisions = await Promise.all(
      Array.from({ length: 10 }, () => store.transitionDevice('dc-1', 'pending', 'approved', alice)),
    );
    expect(decisions.filter(Boolean)).toHaveLength(1);
    expect(await store.findDevice('dc-1')).toMatchObject({ status: 'approved', user: alice });
    const redemptions = await Promise.all(
      Array.from({ length: 10 }, () => store.transitionDevice('dc-1', 'approved', 'redeemed')),
    );
    expect(redemptions.filter(Boolean)).toHaveLength(1);
    expect(await store.transitionDevice('nope', 'pending', 'approved', alice)).toBeUndefined();
  });

  it('recognises an expired device code for a while, an unknown one never', async () => {
    const store = newStore();
    await store.saveDevice(device());
    expect(await store.deviceCodeExpired('dc-1')).toBe(false);
    clock += 10_000;
    expect(await store.findDevice('dc-1')).toBeUndefined();
    expect(await store.deviceCodeExpired('dc-1')).toBe(true);
    expect(await store.deviceCodeExpired('nope')).toBe(false);
    clock += 60_000;
    expect(await store.deviceCodeExpired('dc-1')).toBe(false);
  });

  it('evicts expired requests and activations on sweep', async () => {
    const store = newStore();
    await store.saveDevice(device());
    await store.saveActivation({ id: 'a-1', deviceCode: 'dc-1', expiresAt: clock + 5_000 });
    expect(await store.findActivation('a-1')).toMatchObject({ deviceCode: 'dc-1' });
    const before = store.size;
    clock += 10_000;
    store.sweep();
    expect(await store.findActivation('a-1')).toBeUndefined();
    // Only the expired-code memory is left.
    expect(store.size).toBe(before - 3);
    clock += 60_000;
    store.sweep();
    expect(store.size).toBe(0);
  });
});
