import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  INVALID_VERIFIER_KINDS,
  invalidVerifier,
  otherVerifier,
  pkcePair,
  s256Challenge,
  validVerifier,
} from '../../generators/pkce.ts';

const SEED = 7636;

/** RFC 7636 §4.1: code-verifier = 43*128unreserved; unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~". */
function isUnreserved(c: string): boolean {
  const x = c.charCodeAt(0);
  return (
    c.length === 1 &&
    ((x >= 0x41 && x <= 0x5a) || (x >= 0x61 && x <= 0x7a) || (x >= 0x30 && x <= 0x39) || '-._~'.includes(c))
  );
}
const matchesAbnf = (v: string) => v.length >= 43 && v.length <= 128 && [...v].every(isUnreserved);

describe('PKCE generators', () => {
  it('valid verifiers satisfy the RFC 7636 §4.1 ABNF and cover both boundary lengths', () => {
    const verifiers = fc.sample(validVerifier(), { seed: SEED, numRuns: 2000 });
    expect(verifiers.every(matchesAbnf)).toBe(true);
    const lengths = new Set(verifiers.map((v) => v.length));
    expect(lengths.has(43) && lengths.has(128)).toBe(true);
  });

  it('invalid verifiers fail the ABNF in the way they claim, including lengths 42 and 129', () => {
    const invalid = fc.sample(invalidVerifier(), { seed: SEED, numRuns: 2000 });
    for (const { kind, verifier } of invalid) {
      expect(matchesAbnf(verifier), `${kind}: ${JSON.stringify(verifier)}`).toBe(false);
      const allUnreserved = [...verifier].every(isUnreserved);
      switch (kind) {
        case 'empty':
          expect(verifier).toBe('');
          break;
        case 'too-short':
          expect([allUnreserved, verifier.length > 0 && verifier.length < 43]).toEqual([true, true]);
          break;
        case 'too-long':
          expect([allUnreserved, verifier.length > 128]).toEqual([true, true]);
          break;
        case 'forbidden-char':
          expect([allUnreserved, verifier.length >= 43 && verifier.length <= 128]).toEqual([false, true]);
          break;
      }
    }
    expect(new Set(invalid.map((i) => i.kind))).toEqual(new Set(INVALID_VERIFIER_KINDS));
    const lengths = new Set(invalid.map((i) => i.verifier.length));
    expect(lengths.has(42) && lengths.has(129)).toBe(true);
  });

  it('computes the RFC 7636 Appendix B S256 challenge', () => {
    expect(s256Challenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    );
  });

  it('pairs a valid verifier with its unpadded base64url SHA-256 challenge', () => {
    fc.assert(
      fc.property(pkcePair(), ({ verifier, challenge, method }) => {
        const expected = createHash('sha256')
          .update(verifier)
          .digest('base64')
          .replace(/\+/g, '-')
          .replace(/\//g, '_')
          .replace(/=+$/, '');
        return (
          matchesAbnf(verifier) && challenge === expected && /^[A-Za-z0-9_-]{43}$/.test(challenge) && method === 'S256'
        );
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('otherVerifier gives a valid verifier that differs from the given one', () => {
    const given = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
    fc.assert(
      fc.property(otherVerifier(given), (v) => matchesAbnf(v) && v !== given),
      { seed: SEED, numRuns: 300 },
    );
  });
});
