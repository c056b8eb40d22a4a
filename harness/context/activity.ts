/**
 * What a scenario has under way and has finished (login walks, properties), for the message of its
 * timeout: the in-flight work with when it started, and counts of what has ended.
 */

/**
 * What a scenario has under way and has finished, for the message of a timeout: login walks and
 * properties in flight (with when they started) and how many have ended.
 */
export class Activity {
  readonly #inFlight = new Map<number, { what: string; started: number }>();
  readonly #finished: string[] = [];
  #next = 0;

  async track<T>(what: string, work: () => Promise<T>): Promise<T> {
    const end = this.begin(what);
    try {
      return await work();
    } finally {
      end();
    }
  }

  /** `what` is under way until the returned end is called (track without wrapping the work). */
  begin(what: string): () => void {
    const id = this.#next++;
    this.#inFlight.set(id, { what, started: performance.now() });
    return () => {
      this.#inFlight.delete(id);
      this.#finished.push(what);
    };
  }

  /** "finished: …; in flight: …" — the HTTP exchanges recorded count as finished too. */
  describe(exchanges: number): string {
    const now = performance.now();
    const counts = new Map<string, number>();
    for (const what of this.#finished) counts.set(what, (counts.get(what) ?? 0) + 1);
    const finished = [
      `${exchanges} HTTP exchange${exchanges === 1 ? '' : 's'}`,
      ...[...counts].map(([what, n]) => (n > 1 ? `${n}× ${what}` : what)),
    ];
    const inFlight = [...this.#inFlight.values()].map(
      (a) => `${a.what} (for ${Math.round((now - a.started) / 1000)} s)`,
    );
    return (
      `finished: ${finished.join(', ')}; in ` +
      `flight: ${inFlight.length ? inFlight.join(', ') : "nothing the harness tracks (the scenario's own requests)"}`
    );
  }
}
