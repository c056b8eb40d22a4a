/**
 * The variants (docs/fixture.md, "Variants"; issue 39): for every variant of the reference, the clean reference's
 * non-browser catalog gives the same status for every scenario as the plain reference, at concurrency 4 and at 8.
 * variant-flaws.test.ts proves the planted flaws are still caught under each; `npm run variant-matrix` runs it all.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../harness/model/results.ts';
import { VARIANT_NAMES } from '../../reference/index.ts';
import { runCatalog, show, statusChanges } from './variant-matrix.ts';

const SEED = 20261128;

describe('the variants of the reference: no status moves', () => {
  let plain: Report;
  beforeAll(async () => {
    plain = await runCatalog({ seed: SEED });
  }, 600_000);

  it('the plain reference (legacy client seeded) passes, warns only for legacy grants, skips with a reason', () => {
    const bad = plain.results.filter(
      (r) =>
        !(r.status === 'passed') &&
        !(r.status === 'warning' && ['implicit', 'password'].includes(r.area)) &&
        !(r.status === 'skipped' && r.skipReason),
    );
    expect(bad.map(show)).toEqual([]);
  });

  // The runs are independent (a reference server each): they run side by side, the `slow` ones (mostly waiting on
  // the delay) beside the others, so the file costs about its slowest run instead of the sum (vitest's maxConcurrency).
  it.concurrent.each(VARIANT_NAMES.flatMap((variant) => [4, 8].map((concurrency) => [variant, concurrency] as const)))(
    '%s at concurrency %i: every scenario keeps its status',
    async (variant, concurrency) => {
      const report = await runCatalog({ seed: SEED, concurrency, variants: [variant] });
      expect(statusChanges(plain, report)).toEqual([]);
      expect(report.results).toHaveLength(plain.results.length);
    },
    900_000,
  );
});
