/** The control characters reporters make visible: one home for the class, so the reporters cannot drift apart. */
/** Characters that show text in another order than it is: U+061C, U+200E/F, U+202A–E, U+2066–9. */
const BIDI = '\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';
/** DEL and the C1 controls. */
const C1 = '\\u007f-\\u009f';
/**
 * Every character a terminal, a log or a reader could be fooled by: C0 and C1 controls, DEL, line and paragraph
 * separators, bidirectional controls. The one class every reporter uses (with `.replace`, or `.search`, which
 * ignores the global flag's position).
 */
export const CONTROL_CHARACTERS = new RegExp(`[\\u0000-\\u001f${C1}\\u2028\\u2029${BIDI}]`, 'g');
/** The same without tab, line feed, carriage return and the separators, which a multi-line report lays out itself. */
export const CONTROLS_BUT_LAYOUT = new RegExp(`[\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f${C1}${BIDI}]`, 'g');
