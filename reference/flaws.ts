/**
 * The planted-flaw registry (docs/catalog.md). Each flaw is one switch at the exact place of the
 * check it disables. None is ever on by default; `serve --flaw NAME` or
 * `createReferenceServer({ flaws: [...] })` turns one on, and `serve` warns loudly when any is.
 */
import { FLAW_NAMES, type FlawName, isFlawName } from '../protocol/flaw-names.ts';

export { FLAWS, FLAW_NAMES, type FlawName, isFlawName } from '../protocol/flaw-names.ts';

/** The set of flaws a server instance runs with; `has` is read at the exact place of each check. */
export class Flaws {
  readonly #on: ReadonlySet<FlawName>;
  constructor(names: Iterable<string> = []) {
    const on = new Set<FlawName>();
    for (const name of names) {
      if (!isFlawName(name)) {
        throw new Error(`unknown flaw "${name}"; known flaws: ${FLAW_NAMES.join(', ')}`);
      }
      on.add(name);
    }
    this.#on = on;
  }
  has(name: FlawName): boolean {
    return this.#on.has(name);
  }
  get active(): FlawName[] {
    return [...this.#on];
  }
}
