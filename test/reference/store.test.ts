import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../reference/index.ts';
import { code, refresh } from '../support/store-records.ts';

function setup() {
  let clock = 1_000_000;
  const store = new MemoryStore({ now: () => clock });
  return { store, advance: (ms: number) => (clock += ms), now: () => clock };
}

describe('MemoryStore: single use is atomic', () => {
  it('consumeCode returns the record to exactly one of many concurrent callers', async () => {
    const { store } = setup();
    await store.saveCode(code());
    const results = await Promise.all(Array.from({ length: 50 }, () => store.consumeCode('c1')));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await store.peekCode('c1')).toBeUndefined();
    expect(await store.usedCodeGrant('c1')).toBe('g1');
    expect(await store.usedCodeGrant('never-issued')).toBeUndefined();
    await store.close();
  });

  it('peekCode reads without consuming', async () => {
    const { store } = setup();
    await store.saveCode(code());
    expect(await store.peekCode('c1')).toMatchObject({ clientId: 'web' });
    expect(await store.consumeCode('c1')).toMatchObject({ clientId: 'web' });
    await store.close();
  });

  it('rotateRefresh succeeds exactly once for an old token, and the old one reads as rotated', async () => {
    const { store } = setup();
    await store.saveRefresh(refresh('r1'));
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.rotateRefresh('r1', refresh(`r2-${i}`))),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect((await store.findRefresh('r1'))?.state).toBe('rotated');
    const winner = results.findIndex(Boolean);
    expect((await store.findRefresh(`r2-${winner}`))?.state).toBe('active');
    expect(await store.findRefresh(`r2-${(winner + 1) % 20}`)).toBeUndefined();
    expect(await store.rotateRefresh('unknown', refresh('r3'))).toBe(false);
    await store.close();
  });

  it('consumeInteraction returns the record once', async () => {
    const { store } = setup();
    await store.saveInteraction({
      id: 'i1',
      clientId: 'web',
      redirectUri: 'https://a/cb',
      scope: 'openid',
      expiresAt: 1_000_000 + 600_000,
    });
    const results = await Promise.all([store.consumeInteraction('i1'), store.consumeInteraction('i1')]);
    expect(results.filter(Boolean)).toHaveLength(1);
    await store.close();
  });

  it('returned refresh state cannot be changed by the caller', async () => {
    const { store } = setup();
    await store.saveRefresh(refresh('r1'));
    const found = await store.findRefresh('r1');
    found!.state = 'revoked';
    expect((await store.findRefresh('r1'))?.state).toBe('active');
    await store.close();
  });
});

describe('MemoryStore: revocation', () => {
  it("revokeGrant revokes the refresh family and the grant's access tokens, including later ones", async () => {
    const { store, now } = setup();
    await store.saveRefresh(refresh('r1'));
    await store.saveAccessToken({ jti: 'a1', grantId: 'g1', clientId: 'web', expiresAt: now() + 60_000 });
    await store.saveAccessToken({ jti: 'other', grantId: 'g2', clientId: 'web', expiresAt: now() + 60_000 });
    expect(await store.isAccessTokenActive('a1')).toBe(true);
    await store.revokeGrant('g1', now() + 3_600_000);
    expect(await store.isGrantRevoked('g1')).toBe(true);
    expect((await store.findRefresh('r1'))?.state).toBe('revoked');
    expect(await store.rotateRefresh('r1', refresh('r2'))).toBe(false);
    expect(await store.isAccessTokenActive('a1')).toBe(false);
    expect(await store.isAccessTokenActive('other')).toBe(true);
    await store.saveRefresh(refresh('late'));
    expect((await store.findRefresh('late'))?.state).toBe('revoked');
    await store.close();
  });

  it('revokeAccessToken and revokeRefresh revoke one token', async () => {
    const { store, now } = setup();
    await store.saveAccessToken({ jti: 'a1', clientId: 'machine', expiresAt: now() + 60_000 });
    await store.revokeAccessToken('a1');
    expect(await store.isAccessTokenActive('a1')).toBe(false);
    expect(await store.isAccessTokenActive('never-issued')).toBe(false);
    await store.saveRefresh(refresh('r1'));
    await store.revokeRefresh('r1');
    expect((await store.findRefresh('r1'))?.state).toBe('revoked');
    await store.close();
  });
});

describe('MemoryStore: expiry and eviction', () => {
  it('expired entries read as absent', async () => {
    const { store, advance, now } = setup();
    await store.saveCode(code());
    await store.saveRefresh(refresh('r1'));
    await store.saveAccessToken({ jti: 'a1', clientId: 'web', expiresAt: now() + 60_000 });
    advance(60_000);
    expect(await store.consumeCode('c1')).toBeUndefined();
    expect(await store.isAccessTokenActive('a1')).toBe(false);
    expect(await store.findRefresh('r1')).toBeDefined();
    advance(3_600_000);
    expect(await store.findRefresh('r1')).toBeUndefined();
    await store.close();
  });

  it('a sweep evicts every expired entry, so the store does not grow without bound', async () => {
    const { store, advance, now } = setup();
    for (let i = 0; i < 1000; i++) {
      await store.saveCode(code({ code: `c${i}`, expiresAt: now() + 60_000 }));
      await store.saveAccessToken({ jti: `a${i}`, clientId: 'web', expiresAt: now() + 60_000 });
    }
    await store.saveRefresh(refresh('keeper'));
    expect(store.size).toBe(2001);
    advance(60_000);
    store.sweep();
    expect(store.size).toBe(1);
    await store.close();
  });

  it('sweeps on its own timer', async () => {
    let clock = 0;
    const store = new MemoryStore({ now: () => clock, sweepIntervalMs: 10 });
    await store.saveCode(code({ expiresAt: 5 }));
    clock = 10;
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(store.size).toBe(0);
    await store.close();
  });
});

describe('MemoryStore: sessions, pushed requests and one-time marks', () => {
  it('a session reads back until deleted or expired', async () => {
    const { store, advance, now } = setup();
    await store.saveSession({ id: 's1', sub: 'u', authTime: 1, expiresAt: now() + 1000 });
    expect((await store.findSession('s1'))?.sub).toBe('u');
    await store.deleteSession('s1');
    expect(await store.findSession('s1')).toBeUndefined();
    await store.saveSession({ id: 's2', sub: 'u', authTime: 1, expiresAt: now() + 1000 });
    advance(1000);
    expect(await store.findSession('s2')).toBeUndefined();
    await store.close();
  });

  it('a pushed request is consumed exactly once, however many race', async () => {
    const { store, now } = setup();
    const requestUri = 'urn:ietf:params:oauth:request_uri:x';
    await store.savePushedRequest({
      requestUri,
      clientId: 'web',
      params: { scope: 'openid' },
      expiresAt: now() + 60_000,
    });
    const taken = await Promise.all(Array.from({ length: 8 }, () => store.consumePushedRequest(requestUri)));
    expect(taken.filter(Boolean)).toHaveLength(1);
    await store.close();
  });

  it('markOnce is true once per namespace and key until expiry', async () => {
    const { store, advance, now } = setup();
    const results = await Promise.all(Array.from({ length: 8 }, () => store.markOnce('dpop', 'j1', now() + 1000)));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await store.markOnce('assertion', 'j1', now() + 1000)).toBe(true);
    advance(1000);
    expect(await store.markOnce('dpop', 'j1', now() + 1000)).toBe(true);
    await store.close();
  });

  it('swapLatest returns the value each replaces, per namespace and key, until expiry', async () => {
    const { store, advance, now } = setup();
    const swapped = await Promise.all(
      ['g1', 'g2', 'g3'].map((g) => store.swapLatest('grant', 'web alice', g, now() + 1000)),
    );
    // Each caller sees the one before it: exactly one saw none, and no value was seen twice.
    expect(swapped.filter((v) => v === undefined)).toHaveLength(1);
    expect(new Set(swapped.filter(Boolean)).size).toBe(2);
    expect(await store.swapLatest('session', 'web alice', 's1', now() + 1000)).toBeUndefined();
    expect(await store.swapLatest('grant', 'web bob', 'g9', now() + 1000)).toBeUndefined();
    advance(1000);
    expect(await store.swapLatest('grant', 'web alice', 'g4', now() + 1000)).toBeUndefined();
    await store.close();
  });
});
