/**
 * Deep freezing for the run plan (plan.ts): its data (plain objects, arrays, Maps and Sets) frozen all the way down,
 * so nothing after planning can change it; a Map or Set gets its add, set, delete and clear replaced by ones that
 * throw, since Object.freeze alone leaves their entries open. Handles are left as they are: functions (the hooks,
 * the target's observe) and class instances (the redactor, which learns the run's tokens; a shared BrowserHost; the
 * immutable OriginPolicy). Accessors are not read (the target's discovery evidence is a copy per read).
 */

function refuse(name: string): () => never {
  return () => {
    throw new TypeError(`the run plan is frozen: ${name} is not allowed`);
  };
}

function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null || Array.isArray(value);
}

/** `value` frozen deeply (in place) and returned. */
export function deepFreeze<T>(value: T): T {
  freeze(value, new Set());
  return value;
}

function freeze(value: unknown, seen: Set<object>): void {
  if (typeof value !== 'object' || value === null || seen.has(value)) return;
  seen.add(value);
  if (value instanceof Map || value instanceof Set) {
    for (const entry of value instanceof Map ? value.entries() : value.values()) freeze(entry, seen);
    if (!Object.isFrozen(value)) {
      for (const method of ['add', 'set', 'delete', 'clear'])
        Object.defineProperty(value, method, { value: refuse(method), enumerable: false });
      Object.freeze(value);
    }
    return;
  }
  if (!isPlain(value)) return;
  // A frozen object may still hold open data below it (a scenario shallowly frozen by defineScenario).
  for (const descriptor of Object.values(Object.getOwnPropertyDescriptors(value)))
    if ('value' in descriptor) freeze(descriptor.value, seen);
  Object.freeze(value);
}

/** Whether `value` is frozen all the way down, as deepFreeze leaves it (handles and accessors not looked into). */
export function isDeepFrozen(value: unknown, seen = new Set<object>()): boolean {
  if (typeof value !== 'object' || value === null || seen.has(value)) return true;
  seen.add(value);
  if (value instanceof Map || value instanceof Set) {
    const entries = value instanceof Map ? [...value.entries()] : [...value.values()];
    return Object.isFrozen(value) && entries.every((e) => isDeepFrozen(e, seen));
  }
  if (!isPlain(value)) return true;
  return (
    Object.isFrozen(value) &&
    Object.values(Object.getOwnPropertyDescriptors(value)).every((d) => !('value' in d) || isDeepFrozen(d.value, seen))
  );
}
