/**
 * A set of named switches read where each takes effect: the planted flaws (flaws.ts) and the variants (variants.ts).
 */
export class Switches<Name extends string> {
  readonly #on: ReadonlySet<Name>;
  constructor(names: Iterable<string>, isName: (name: string) => name is Name, kind: string, known: readonly Name[]) {
    const on = new Set<Name>();
    for (const name of names) {
      if (!isName(name)) throw new Error(`unknown ${kind} "${name}"; known ${kind}s: ${known.join(', ')}`);
      on.add(name);
    }
    this.#on = on;
  }
  has(name: Name): boolean {
    return this.#on.has(name);
  }
  get active(): Name[] {
    return [...this.#on];
  }
}
