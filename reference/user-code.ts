/**
 * RFC 8628 §6.1 user codes: eight letters from twenty consonants, shown as `BCDF-GHJK`. No vowels
 * (no words), nothing that reads as a digit; about 34.6 bits, so wrong guesses are rate-limited at
 * the activation page (§5.1). Accepted case-insensitively, with or without the dash.
 */
import { randomInt } from 'node:crypto';

export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const LENGTH = 8;
const USER_CODE = new RegExp(`^[${USER_CODE_ALPHABET}]{${LENGTH}}$`);

/** A fresh user code in its stored form (no dash). */
export function newUserCode(): string {
  let code = '';
  for (let i = 0; i < LENGTH; i++) code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return code;
}

/** What the user typed, in the stored form; undefined when it cannot be a user code. */
export function normalizeUserCode(input: string): string | undefined {
  const code = input.replace(/[\s-]/g, '').toUpperCase();
  return USER_CODE.test(code) ? code : undefined;
}

/** The form shown to people: `BCDF-GHJK`. */
export const displayUserCode = (code: string) => `${code.slice(0, LENGTH / 2)}-${code.slice(LENGTH / 2)}`;
