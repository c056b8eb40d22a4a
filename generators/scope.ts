/**
 * Scope sets (RFC 6749 §3.3): what a client may ask for (subsets of its allowed scopes) and what
 * it may not (sets reaching outside them). Scope order carries no meaning, so values come shuffled.
 */
import fc from 'fast-check';

/** The scope parameter: space-delimited scope tokens (RFC 6749 §3.3). */
export const formatScope = (scopes: readonly string[]): string => scopes.join(' ');
export { scopeTokens as parseScope } from '../protocol/scope.ts';
/** The same sets as scope strings. */
export const asScopeString = (scopes: fc.Arbitrary<string[]>): fc.Arbitrary<string> => scopes.map(formatScope);

export interface ScopeSubsetOptions {
  /** Scopes every subset contains, e.g. `openid` (each must be allowed). */
  always?: readonly string[];
  /** The smallest size, `always` included (default 0: the empty set too). */
  minSize?: number;
}

const unique = (scopes: readonly string[]): string[] => [...new Set(scopes)];
const outside = (allowed: readonly string[], extra: readonly string[]): string[] => {
  const wider = unique(extra).filter((s) => !allowed.includes(s));
  if (wider.length === 0) throw new Error('extra must name at least one scope outside the allowed ones');
  return wider;
};

/** Subsets of `allowed`: what a server must grant as asked (or narrow), never refuse as invalid_scope. */
export function scopeSubset(allowed: readonly string[], options: ScopeSubsetOptions = {}): fc.Arbitrary<string[]> {
  const always = unique(options.always ?? []);
  const missing = always.filter((s) => !allowed.includes(s));
  if (missing.length > 0) throw new Error(`always-scopes not in allowed: ${missing.join(' ')}`);
  const rest = unique(allowed).filter((s) => !always.includes(s));
  const minLength = Math.max(0, (options.minSize ?? 0) - always.length);
  return fc.shuffledSubarray(rest, { minLength }).map((chosen) => [...always, ...chosen]);
}

/** Strict supersets: every allowed scope plus at least one scope of `extra` outside them. */
export function scopeSuperset(allowed: readonly string[], extra: readonly string[]): fc.Arbitrary<string[]> {
  const all = unique(allowed);
  return fc
    .tuple(
      fc.shuffledSubarray(all, { minLength: all.length }),
      fc.shuffledSubarray(outside(all, extra), { minLength: 1 }),
    )
    .map(([mine, wider]) => [...mine, ...wider]);
}

/**
 * Escalations: any subset of `allowed` plus at least one scope outside it — every set a server must
 * refuse with invalid_scope (RFC 6749 §5.2) or narrow, never grant in full.
 */
export function scopeEscalation(allowed: readonly string[], extra: readonly string[]): fc.Arbitrary<string[]> {
  return fc
    .tuple(scopeSubset(allowed), fc.shuffledSubarray(outside(unique(allowed), extra), { minLength: 1 }), fc.nat())
    .map(([mine, wider, at]) => {
      const position = at % (mine.length + 1); // the wider scopes may stand anywhere
      return [...mine.slice(0, position), ...wider, ...mine.slice(position)];
    });
}
