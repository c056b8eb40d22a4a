/**
 * Counts failed attempts per key (a client address) in a fixed window. RFC 8628 §5.1: user codes
 * are short enough to guess, so wrong ones must be rate-limited.
 */
export class FailedAttempts {
  readonly #failures = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly limit: { max: number; windowMs: number },
    private readonly now: () => number,
  ) {}

  /** Whether `key` has used up its attempts for the current window. */
  exhausted(key: string): boolean {
    const entry = this.#failures.get(key);
    return entry !== undefined && entry.resetAt > this.now() && entry.count >= this.limit.max;
  }

  fail(key: string): void {
    const now = this.now();
    let entry = this.#failures.get(key);
    if (!entry || entry.resetAt <= now) {
      if (this.#failures.size >= 10_000) this.#evict(now);
      entry = { count: 0, resetAt: now + this.limit.windowMs };
      this.#failures.set(key, entry);
    }
    entry.count += 1;
  }

  #evict(now: number): void {
    for (const [key, entry] of this.#failures) if (entry.resetAt <= now) this.#failures.delete(key);
  }
}
