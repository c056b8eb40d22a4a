/**
 * Type guards for values read from JSON, a command line or a table: each narrows by a check at run time, never by a
 * cast (issue 41, "Parse, don't cast").
 */

/** Whether `value` is one of `list` (a const list of names: algorithms, profiles, codes). */
export function isOneOf<T>(list: readonly T[], value: unknown): value is T {
  return list.some((item) => item === value);
}

/** Whether `value` is a JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The own keys of a table keyed by a union of names, as those names. */
export function keysOf<K extends string>(table: Readonly<Partial<Record<K, unknown>>>): K[] {
  return Object.keys(table).filter((key): key is K => Object.hasOwn(table, key));
}

/** The message of a thrown value: an Error's own, else the value as text. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
