/**
 * The planted flaws under the variants (issue 39): eight representative flaws — one for each family of checks a
 * variant could blind (code, PKCE, redirect, refresh, scope, consent, the authorization response, client
 * authentication) — are caught by every claimant, with the status its level implies, under every variant of the
 * reference. The whole flaw × variant matrix: `npm run variant-matrix -- --no-baseline --flaws all`.
 */
import { describe, expect, it } from 'vitest';
import { VARIANT_NAMES } from '../../reference/index.ts';
import { CATALOG, EXPECTED } from './flaw-matrix.ts';
import { missedCatches, REPRESENTATIVE_FLAWS, runCatalog } from './variant-matrix.ts';

const SEED = 20261128;

describe('eight representative planted flaws are caught under every variant', () => {
  it('each representative flaw has claimants in the catalog', () => {
    for (const flaw of REPRESENTATIVE_FLAWS)
      expect(CATALOG.filter((s) => s.catches?.includes(flaw)).length, flaw).toBeGreaterThan(0);
  });

  it.each(VARIANT_NAMES)(
    'under %s',
    async (variant) => {
      const missed: string[] = [];
      for (const flaw of REPRESENTATIVE_FLAWS) {
        const scenarios = CATALOG.filter((s) => s.catches?.includes(flaw));
        const report = await runCatalog({ seed: SEED, variants: [variant], flaws: [flaw], scenarios });
        expect(report.results).toHaveLength(scenarios.length);
        missed.push(...missedCatches(flaw, report, EXPECTED));
      }
      expect(missed).toEqual([]);
    },
    900_000,
  );
});
