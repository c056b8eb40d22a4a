import { describe, expect, it } from 'vitest';
import { parseShard, shardOf } from '../../harness/run/shard.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';

describe('--shard i/n', () => {
  it('parses i/n and refuses anything else, naming the form', () => {
    expect(parseShard('2/4')).toEqual({ index: 2, total: 4 });
    for (const bad of ['0/4', '5/4', '2', '2/0', 'a/b', '1/2/3', '-1/2'])
      expect(() => parseShard(bad)).toThrow(/i\/n with 1 ≤ i ≤ n/);
  });

  it('the shards of a selection run every scenario exactly once, sizes within one of each other', () => {
    for (const total of [1, 2, 3, 4, 7, BUILT_IN_SCENARIOS.length, BUILT_IN_SCENARIOS.length + 3]) {
      const parts = Array.from({ length: total }, (_, i) => shardOf(BUILT_IN_SCENARIOS, { index: i + 1, total }));
      const ids = parts.flat().map((s) => s.id);
      expect(ids.sort()).toEqual(BUILT_IN_SCENARIOS.map((s) => s.id).sort());
      const sizes = parts.map((p) => p.length);
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    }
  });

  it('is stable: the same on every runner whatever the input order, and it keeps the input order', () => {
    const reversed = [...BUILT_IN_SCENARIOS].reverse();
    const a = shardOf(BUILT_IN_SCENARIOS, { index: 2, total: 3 }).map((s) => s.id);
    const b = shardOf(reversed, { index: 2, total: 3 }).map((s) => s.id);
    expect([...b].reverse()).toEqual(a);
    const positions = a.map((id) => BUILT_IN_SCENARIOS.findIndex((s) => s.id === id));
    expect(positions).toEqual([...positions].sort((x, y) => x - y));
  });

  it('spreads an area over the shards instead of giving it to one runner', () => {
    const areas = (index: number) => new Set(shardOf(BUILT_IN_SCENARIOS, { index, total: 2 }).map((s) => s.area));
    const shared = [...areas(1)].filter((area) => areas(2).has(area));
    expect(shared.length).toBeGreaterThan(3);
  });
});
