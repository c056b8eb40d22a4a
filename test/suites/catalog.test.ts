/** The catalog as shipped: ids are unique, and the table in docs/catalog.md is current. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CATALOG_PAGE, catalogTable, withCatalog } from '../../scripts/catalog.ts';
import { CATALOG_FILE, renderCatalogModule, scenarioFiles } from '../../scripts/suites-catalog.ts';
import { byReportOrder } from '../../suites/areas.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';

describe('the catalog', () => {
  it('has unique ids, each with requirements', () => {
    const ids = BUILT_IN_SCENARIOS.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const s of BUILT_IN_SCENARIOS) expect(s.requirements.length, s.id).toBeGreaterThan(0);
  });

  it('every scenario declares what it applies to; an OIDC-only one cites OIDC, an OAuth one an OAuth rule', () => {
    for (const s of BUILT_IN_SCENARIOS) {
      expect(['oauth2', 'oidc'], s.id).toContain(s.appliesTo);
      if (s.appliesTo === 'oidc')
        expect(
          s.requirements.some((r) => r.spec.startsWith('OIDC')),
          s.id,
        ).toBe(true);
      else
        expect(
          s.requirements.some((r) => !r.spec.startsWith('OIDC')),
          s.id,
        ).toBe(true);
    }
  });

  it('suites/catalog.ts re-exports every scenario file on disk (npm run catalog regenerates it)', () => {
    expect(readFileSync(CATALOG_FILE, 'utf8')).toBe(renderCatalogModule());
    expect(BUILT_IN_SCENARIOS.map((s) => s.id)).toEqual(scenarioFiles().map((f) => f.replace('/', '.')));
  });

  it('suites/catalog.ts has one line per scenario file: adding one adds its line and changes no other', () => {
    const files = scenarioFiles();
    const before = renderCatalogModule(files).split('\n');
    const added = [...files, 'pkce/zz-new', 'zz-new-area/first'].sort(byReportOrder);
    const after = renderCatalogModule(added).split('\n');
    expect(after.filter((line) => !before.includes(line))).toEqual([
      "export { default as 'pkce/zz-new' } from './pkce/zz-new.ts';",
      "export { default as 'zz-new-area/first' } from './zz-new-area/first.ts';",
    ]);
    expect(after.filter((line) => !line.includes('zz-new'))).toEqual(before);
    expect(() => renderCatalogModule(['pkce/Bad_name'])).toThrow(/kebab-case, not pkce\/Bad_name/);
  });

  it('report order: areas as AREA_ORDER lists them, unlisted ones last by name, then file names', () => {
    expect(['zz/a', 'pkce/b', 'aa/z', 'discovery/b', 'pkce/a-b', 'discovery/a'].sort(byReportOrder)).toEqual([
      'discovery/a',
      'discovery/b',
      'pkce/a-b',
      'pkce/b',
      'aa/z',
      'zz/a',
    ]);
  });

  it("CONTRIBUTING.md's Adding a scenario checklist is at most 4 steps, the generated parts run by commands", () => {
    const page = readFileSync(new URL('../../CONTRIBUTING.md', import.meta.url), 'utf8');
    const section = page.split('\n## Adding a scenario\n')[1]!.split('\n## ')[0]!;
    const steps = section.match(/^\d+\. /gm) ?? [];
    expect(steps.length).toBeGreaterThan(0);
    expect(steps.length).toBeLessThanOrEqual(4);
    expect(section).toContain('npm run catalog');
    expect(section).toContain('npm run interop -- --update --only <area>.<name>');
  });

  it('is listed in docs/catalog.md as it is (npm run catalog rewrites the table)', () => {
    const page = readFileSync(CATALOG_PAGE, 'utf8');
    expect(withCatalog(page)).toBe(page);
    for (const s of BUILT_IN_SCENARIOS) expect(catalogTable()).toContain(`| \`${s.id}\` |`);
  });
});
