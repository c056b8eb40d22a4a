/**
 * PKCE code verifiers and challenges (RFC 7636). A verifier is
 *   code-verifier = 43*128unreserved, unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"  (§4.1)
 * and the S256 challenge is BASE64URL-ENCODE(SHA256(ASCII(code_verifier))) (§4.2), protocol/pkce.ts.
 */
import fc from 'fast-check';
import { s256, UNRESERVED, VERIFIER_MAX_LENGTH, VERIFIER_MIN_LENGTH } from '../protocol/pkce.ts';

export { UNRESERVED, VERIFIER_MAX_LENGTH, VERIFIER_MIN_LENGTH } from '../protocol/pkce.ts';

export const INVALID_VERIFIER_KINDS = ['empty', 'too-short', 'too-long', 'forbidden-char'] as const;
export type InvalidVerifierKind = (typeof INVALID_VERIFIER_KINDS)[number];

export interface InvalidVerifier {
  kind: InvalidVerifierKind;
  verifier: string;
}

export interface PkcePair {
  verifier: string;
  challenge: string;
  method: 'S256';
}

/**
 * Characters outside the unreserved set that clients get wrong: base64 (+ / =), URL syntax, space, non-ASCII, control.
 */
export const FORBIDDEN_VERIFIER_CHARS = [
  ' ',
  '+',
  '/',
  '=',
  '%',
  '&',
  '#',
  '?',
  '!',
  '*',
  '(',
  '"',
  ':',
  '@',
  '\\',
  'é',
  'ß',
  '\t',
  '\n',
  '\u0000',
];

const unreserved = fc.constantFrom(...UNRESERVED);
const verifierOfLength = (minLength: number, maxLength: number): fc.Arbitrary<string> =>
  fc.string({ unit: unreserved, minLength, maxLength });

/** Valid verifiers: 43–128 unreserved characters (RFC 7636 §4.1); the boundary lengths are frequent. */
export function validVerifier(): fc.Arbitrary<string> {
  const [min, max] = [VERIFIER_MIN_LENGTH, VERIFIER_MAX_LENGTH];
  return fc.oneof(verifierOfLength(min, max), verifierOfLength(min, min), verifierOfLength(max, max));
}

/** Verifiers that break RFC 7636 §4.1 in exactly one way; the boundary lengths 42 and 129 are frequent. */
export function invalidVerifier(): fc.Arbitrary<InvalidVerifier> {
  const tagged =
    (kind: InvalidVerifierKind) =>
    (verifier: string): InvalidVerifier => ({ kind, verifier });
  const min = VERIFIER_MIN_LENGTH;
  const max = VERIFIER_MAX_LENGTH;
  return fc.oneof(
    fc.constant('').map(tagged('empty')),
    fc.oneof(verifierOfLength(min - 1, min - 1), verifierOfLength(1, min - 2)).map(tagged('too-short')),
    fc.oneof(verifierOfLength(max + 1, max + 1), verifierOfLength(max + 2, 2 * max)).map(tagged('too-long')),
    fc
      .tuple(validVerifier(), fc.nat(), fc.constantFrom(...FORBIDDEN_VERIFIER_CHARS))
      .map(([v, at, c]) => v.slice(0, at % v.length) + c + v.slice((at % v.length) + 1))
      .map(tagged('forbidden-char')),
  );
}

/**
 * The S256 code_challenge of a verifier (RFC 7636 §4.2): unpadded base64url of SHA-256. Also of the
 * invalid verifiers above: protocol/pkce.ts says how one outside the §4.1 alphabet is hashed.
 */
export const s256Challenge: (verifier: string) => string = s256;

/** A valid verifier with its S256 challenge. */
export function pkcePair(): fc.Arbitrary<PkcePair> {
  return validVerifier().map((verifier) => ({ verifier, challenge: s256Challenge(verifier), method: 'S256' as const }));
}

/** Valid verifiers other than `verifier`: what pkce.verifier-mismatch sends (RFC 7636 §4.6). */
export function otherVerifier(verifier: string): fc.Arbitrary<string> {
  return validVerifier().map((v) => (v === verifier ? `${v.slice(0, -1)}${v.endsWith('A') ? 'B' : 'A'}` : v));
}
