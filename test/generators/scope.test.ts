import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  asScopeString,
  formatScope,
  parseScope,
  scopeEscalation,
  scopeSubset,
  scopeSuperset,
} from '../../generators/scope.ts';

const SEED = 33;
const ALLOWED = ['openid', 'profile', 'email', 'address', 'phone'];
const EXTRA = ['admin', 'api:write', 'offline_access', 'openid'];
const run = <T>(arb: fc.Arbitrary<T>) => fc.sample(arb, { seed: SEED, numRuns: 500 });
const noDuplicates = (s: string[]) => new Set(s).size === s.length;
const within = (s: string[], set: string[]) => s.every((x) => set.includes(x));

describe('scope generators', () => {
  it('scopeSubset gives duplicate-free subsets, from empty to full, in varying order', () => {
    const sets = run(scopeSubset(ALLOWED));
    for (const s of sets) expect([within(s, ALLOWED), noDuplicates(s)]).toEqual([true, true]);
    const sizes = new Set(sets.map((s) => s.length));
    expect(sizes.has(0) && sizes.has(ALLOWED.length)).toBe(true);
    expect(new Set(sets.filter((s) => s.length === ALLOWED.length).map(formatScope)).size).toBeGreaterThan(1);
  });

  it('scopeSubset honours always and minSize', () => {
    for (const s of run(scopeSubset(ALLOWED, { always: ['openid'], minSize: 2 }))) {
      expect([s[0], s.length >= 2, within(s, ALLOWED), noDuplicates(s)]).toEqual(['openid', true, true, true]);
    }
    expect(() => scopeSubset(ALLOWED, { always: ['admin'] })).toThrow(/admin/);
  });

  it('scopeSuperset contains every allowed scope and at least one more, from extra', () => {
    for (const s of run(scopeSuperset(ALLOWED, EXTRA))) {
      const wider = s.filter((x) => !ALLOWED.includes(x));
      expect([within(ALLOWED, s), wider.length > 0, within(wider, EXTRA), noDuplicates(s)]).toEqual([
        true,
        true,
        true,
        true,
      ]);
    }
    expect(() => scopeSuperset(ALLOWED, ['openid'])).toThrow(/outside/);
  });

  it('scopeEscalation always reaches outside the allowed set, sometimes with nothing allowed', () => {
    const sets = run(scopeEscalation(ALLOWED, EXTRA));
    for (const s of sets)
      expect([within(s, ALLOWED), noDuplicates(s), within(s, [...ALLOWED, ...EXTRA])]).toEqual([false, true, true]);
    expect(sets.some((s) => within(s, EXTRA))).toBe(true);
    // wider ones in the middle too
    expect(sets.some((s) => !EXTRA.includes(s[0]!) && !EXTRA.includes(s.at(-1)!))).toBe(true);
  });

  it('formats and parses the space-delimited scope parameter', () => {
    expect(formatScope(['openid', 'email'])).toBe('openid email');
    expect(parseScope('  openid  email ')).toEqual(['openid', 'email']);
    fc.assert(
      fc.property(asScopeString(scopeSubset(ALLOWED)), (s) => formatScope(parseScope(s)) === s),
      { seed: SEED },
    );
  });
});
