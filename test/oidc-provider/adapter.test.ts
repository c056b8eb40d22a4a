import { describe, expect, it } from 'vitest';
import { createAtomicMemoryAdapter } from '../../interop/oidc-provider/adapter.ts';

class AlreadyConsumed extends Error {}

function setup() {
  let clock = 1_000_000;
  const factory = createAtomicMemoryAdapter({
    alreadyConsumed: (model) => new AlreadyConsumed(model),
    now: () => clock,
  });
  return {
    factory,
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

describe('atomic memory adapter for oidc-provider', () => {
  it('stores per model, finds by id, user code and session uid, and forgets expired entries', async () => {
    const { factory, advance } = setup();
    const codes = factory('AuthorizationCode');
    const devices = factory('DeviceCode');
    const sessions = factory('Session');
    await codes.upsert('c1', { grantId: 'g1', scope: 'openid' }, 60);
    await devices.upsert('d1', { userCode: 'ABCD-EFGH' }, 600);
    await sessions.upsert('s1', { uid: 'u1' }, undefined);

    expect(await codes.find('c1')).toEqual({ grantId: 'g1', scope: 'openid' });
    expect(await devices.find('c1')).toBeUndefined();
    expect(await devices.findByUserCode('ABCD-EFGH')).toEqual({ userCode: 'ABCD-EFGH' });
    expect(await sessions.findByUid('u1')).toEqual({ uid: 'u1' });

    advance(61_000);
    expect(await codes.find('c1')).toBeUndefined();
    expect(await devices.findByUserCode('ABCD-EFGH')).toBeDefined();
    expect(await sessions.find('s1')).toBeDefined();
  });

  it('hands out copies, so a found payload cannot change the stored one', async () => {
    const { factory } = setup();
    const codes = factory('AuthorizationCode');
    await codes.upsert('c1', { grantId: 'g1' }, 60);
    const found = await codes.find('c1');
    if (found) found.consumed = 1;
    expect(await codes.find('c1')).not.toHaveProperty('consumed');
  });

  it('consumes once; a second consume revokes the grant and throws the configured error', async () => {
    const { factory } = setup();
    const codes = factory('AuthorizationCode');
    const accessTokens = factory('AccessToken');
    const grants = factory('Grant');
    await grants.upsert('g1', { accountId: 'alice' }, 3600);
    await codes.upsert('c1', { grantId: 'g1' }, 60);
    await accessTokens.upsert('a1', { grantId: 'g1' }, 3600);
    await accessTokens.upsert('a2', { grantId: 'g2' }, 3600);

    await codes.consume('c1');
    expect(await codes.find('c1')).toMatchObject({ consumed: expect.any(Number) });
    await expect(codes.consume('c1')).rejects.toBeInstanceOf(AlreadyConsumed);

    expect(await accessTokens.find('a1')).toBeUndefined();
    expect(await grants.find('g1')).toBeUndefined();
    expect(await accessTokens.find('a2')).toBeDefined();
  });

  it('lets exactly one of many concurrent consumes win', async () => {
    const { factory } = setup();
    const refreshTokens = factory('RefreshToken');
    await refreshTokens.upsert('r1', { grantId: 'g1' }, 3600);
    const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => refreshTokens.consume('r1')));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
  });

  it("revokes by grant only the calling model's artifacts", async () => {
    const { factory } = setup();
    const accessTokens = factory('AccessToken');
    const refreshTokens = factory('RefreshToken');
    await accessTokens.upsert('a1', { grantId: 'g1' }, 3600);
    await refreshTokens.upsert('r1', { grantId: 'g1' }, 3600);
    await accessTokens.revokeByGrantId('g1');
    expect(await accessTokens.find('a1')).toBeUndefined();
    expect(await refreshTokens.find('r1')).toBeDefined();
    await refreshTokens.destroy('r1');
    expect(await refreshTokens.find('r1')).toBeUndefined();
  });
});
