/** Referrer policies (W3C Referrer Policy §3) and how a browser reads a Referrer-Policy value. */

/** Every policy a browser knows. */
export const REFERRER_POLICIES: ReadonlySet<string> = new Set([
  'no-referrer',
  'no-referrer-when-downgrade',
  'same-origin',
  'origin',
  'strict-origin',
  'origin-when-cross-origin',
  'strict-origin-when-cross-origin',
  'unsafe-url',
]);

/**
 * The effective policy of a Referrer-Policy header (or a meta referrer, or both joined with ","):
 * the last token a browser knows (W3C Referrer Policy §4.1, §8.1); undefined when none is.
 */
export function effectiveReferrerPolicy(value: string | undefined): string | undefined {
  return (value ?? '')
    .split(',')
    .map((t) => t.trim().toLowerCase())
    .filter((t) => REFERRER_POLICIES.has(t))
    .at(-1);
}
