/** The catalog as shipped: ids match DESIGN §7's, and the README's table is current. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { catalogTable, README, withCatalog } from '../../scripts/catalog.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';

describe('the catalog', () => {
  it('has unique ids, each with requirements', () => {
    const ids = BUILT_IN_SCENARIOS.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const s of BUILT_IN_SCENARIOS) expect(s.requirements.length, s.id).toBeGreaterThan(0);
  });

  it('is listed in the README as it is (npm run catalog rewrites the table)', () => {
    const readme = readFileSync(README, 'utf8');
    expect(withCatalog(readme)).toBe(readme);
    for (const s of BUILT_IN_SCENARIOS) expect(catalogTable()).toContain(`| \`${s.id}\` |`);
  });
});
