/**
 * The built-in catalog. One file per scenario: id `area.name` ⇔ `suites/area/name.ts`, each
 * default-exporting `defineScenario(...)`. suites/catalog.ts re-exports every file statically, one
 * line each under its path (`npm run catalog` regenerates it; a test fails when a file is missing
 * from it), so the package loads without scanning directories or awaiting at the top level; a file
 * whose id does not match its path is refused at load time.
 */
import { HarnessError } from '../harness/model/failures.ts';
import { isScenario, type Scenario } from '../harness/scenario/scenario.ts';
import { byReportOrder } from './areas.ts';
import * as CATALOG from './catalog.ts';

export { AREA_ORDER } from './areas.ts';

function checked(entries: ReadonlyArray<readonly [string, unknown]>): Scenario[] {
  return entries.map(([file, exported]) => {
    const expected = file.replace('/', '.');
    if (!isScenario(exported)) {
      throw new HarnessError(`suites/${file}.ts must default-export defineScenario({ id: '${expected}', ... })`);
    }
    if (exported.id !== expected) {
      throw new HarnessError(`suites/${file}.ts declares id "${exported.id}"; its path makes it "${expected}"`);
    }
    return exported;
  });
}

/** The catalog's files in report order (a module namespace lists its names alphabetically). */
const entries = Object.entries(CATALOG).sort(([a], [b]) => byReportOrder(a, b));

export const BUILT_IN_SCENARIOS: readonly Scenario[] = Object.freeze(checked(entries));
