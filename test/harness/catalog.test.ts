import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isScenario } from '../../harness/scenario/scenario.ts';
import { requirementUrl } from '../../harness/model/requirements.ts';
import { isFlawName } from '../../reference/flaws.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';

const SUITES = fileURLToPath(new URL('../../suites/', import.meta.url));

describe('the built-in catalog', () => {
  it('holds every scenario file, each with the id its path names (suites/area/name.ts ⇔ area.name)', async () => {
    const areas = (await readdir(SUITES, { withFileTypes: true })).filter(
      (d) => d.isDirectory() && d.name !== 'checks',
    );
    const files: string[] = [];
    for (const area of areas) {
      for (const file of await readdir(path.join(SUITES, area.name)))
        if (file.endsWith('.ts')) files.push(`${area.name}/${file}`);
    }
    const ids: string[] = [];
    for (const file of files) {
      const mod = (await import(pathToFileURL(path.join(SUITES, file)).href)) as { default: unknown };
      expect(isScenario(mod.default), file).toBe(true);
      const id = (mod.default as { id: string }).id;
      expect(id, file).toBe(file.replace(/\.ts$/, '').replace('/', '.'));
      ids.push(id);
    }
    expect(BUILT_IN_SCENARIOS.map((s) => s.id).sort()).toEqual(ids.sort());
  });

  it('ids are unique, planted flaws exist, every requirement has a link or is SPEC', () => {
    const ids = BUILT_IN_SCENARIOS.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const s of BUILT_IN_SCENARIOS) {
      for (const flaw of s.catches ?? []) expect(isFlawName(flaw), `${s.id} catches ${flaw}`).toBe(true);
      for (const r of s.requirements) {
        if (r.spec !== 'SPEC') expect(requirementUrl(r), `${s.id}: ${r.spec} §${r.section}`).toMatch(/^https:\/\//);
      }
    }
  });
});

describe('requirement links', () => {
  it('points at the section of each document', () => {
    expect(requirementUrl({ spec: 'RFC 6749', section: '4.1.2' })).toBe(
      'https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2',
    );
    expect(requirementUrl({ spec: 'RFC 7636', section: 'B' })).toBe(
      'https://www.rfc-editor.org/rfc/rfc7636#appendix-B',
    );
    expect(requirementUrl({ spec: 'OIDC Core', section: '3.1.3.7' })).toBe(
      'https://openid.net/specs/openid-connect-core-1_0.html#rfc.section.3.1.3.7',
    );
    expect(requirementUrl({ spec: 'OIDC Discovery', section: '4.3' })).toBe(
      'https://openid.net/specs/openid-connect-discovery-1_0.html#rfc.section.4.3',
    );
    expect(requirementUrl({ spec: 'SPEC', section: 'Token endpoint' })).toBeUndefined();
    expect(
      requirementUrl({ spec: 'SPEC', section: 'First-party versus third-party' }, { specUrl: 'file:///x/SPEC.md' }),
    ).toBe('file:///x/SPEC.md#first-party-versus-third-party');
  });
});
