/**
 * The planted-flaw registry (docs/catalog.md). Each flaw is one switch at the exact place of the
 * check it disables. None is ever on by default; `serve --flaw NAME` or
 * `createReferenceServer({ flaws: [...] })` turns one on, and `serve` warns loudly when any is.
 */
import { FLAW_NAMES, type FlawName, isFlawName } from '../protocol/flaw-names.ts';
import { Switches } from './switches.ts';

export { FLAWS, FLAW_NAMES, type FlawName, isFlawName } from '../protocol/flaw-names.ts';

/** The set of flaws a server instance runs with; `has` is read at the exact place of each check. */
export class Flaws extends Switches<FlawName> {
  constructor(names: Iterable<string> = []) {
    super(names, isFlawName, 'flaw', FLAW_NAMES);
  }
}
