/**
 * How a login driver recognizes controls by what they say: the buttons that approve or deny a
 * request, and the input a device's user code goes into. Shared by the form and browser drivers.
 */

export const APPROVE = /\b(allow|approve|accept|consent|yes|continue|authori[sz]e|grant|confirm|agree)\b/i;
export const DENY = /\b(deny|decline|reject|cancel|abort|no|refuse|disallow)\b/i;

/** Whether a control reading `text` (its name, value and label) gives `decision`. */
export function gives(decision: 'approve' | 'deny', text: string, label = text): boolean {
  return decision === 'deny' ? DENY.test(text) : APPROVE.test(text) && !DENY.test(label);
}

/** Input types a user types a user code into (RFC 8628 §3.3). */
export const TEXT_INPUT_TYPES = new Set(['text', 'search', 'tel', 'number']);

/** An input named (or labelled by id) like a code. */
export const USER_CODE_NAME = /code/i;
