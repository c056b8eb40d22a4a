/**
 * The service specification ships with the package (docs/service-spec.md): SPEC requirements link
 * to its headings, its requirements are numbered with stable anchors, and nothing at run time
 * refers to a file outside the repository.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { requirementUrl } from '../../harness/model/requirements.ts';
import { defaultSpecUrl, SERVICE_SPEC_PATH } from '../../index.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const spec = readFileSync(join(root, SERVICE_SPEC_PATH), 'utf8');
/** The runtime code: what the built package compiles (tsconfig.build.json "include"). */
const RUNTIME = ['reference', 'harness', 'suites', 'generators', 'reports', 'cli', 'index.ts'];

function files(path: string): string[] {
  const full = join(root, path);
  if (statSync(full).isFile()) return [full];
  return readdirSync(full, { recursive: true, encoding: 'utf8' })
    .map((f) => join(full, f))
    .filter((f) => /\.(ts|mjs|js)$/.test(f));
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s+/g, '-');
const headings = [...spec.matchAll(/^#{2,3} (.+)$/gm)].map((m) => anchorOf(m[1]!));

describe('docs/service-spec.md', () => {
  it('is where SPEC requirements link: a file URL into this package', () => {
    const url = defaultSpecUrl();
    expect(url).toBeDefined();
    expect(url!.startsWith('file://')).toBe(true);
    expect(fileURLToPath(url!)).toBe(join(root, SERVICE_SPEC_PATH));
  });

  it('has a heading for every SPEC section a scenario or check cites', () => {
    const cited = new Set<string>();
    for (const file of RUNTIME.flatMap(files)) {
      for (const m of readFileSync(file, 'utf8').matchAll(/spec: 'SPEC',\s*section: '([^']+)'/g)) cited.add(m[1]!);
    }
    expect(cited.size).toBeGreaterThan(5);
    for (const section of cited) {
      const url = requirementUrl({ spec: 'SPEC', section }, { specUrl: defaultSpecUrl()! });
      const anchor = url!.split('#')[1]!;
      expect(headings, `SPEC › ${section}`).toContain(anchor);
    }
  });

  it('numbers its requirements with unique, stable anchors that match their ids', () => {
    const requirements = [...spec.matchAll(/<a id="([a-z]+-\d+)"><\/a>\*\*([A-Z]+-\d+)\.\*\*/g)];
    expect(requirements.length).toBeGreaterThan(40);
    const ids = requirements.map((m) => m[2]!);
    expect(new Set(ids).size).toBe(ids.length);
    for (const m of requirements) expect(m[1]).toBe(m[2]!.toLowerCase());
    // Every in-document link points at an anchor or heading that exists.
    for (const m of spec.matchAll(/\]\(#([^)]+)\)/g)) {
      expect([...headings, ...requirements.map((r) => r[1])], m[1]).toContain(m[1]);
    }
  });

  it('ships in the package ("files")', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { files: string[] };
    expect(pkg.files).toContain('docs');
  });
});

describe('nothing at run time refers outside the repository', () => {
  it('no runtime source names ../shared/ or an absolute path of this machine', () => {
    const offenders = RUNTIME.flatMap(files)
      .filter((file) => /\.\.\/shared\/|\/work\/|SPEC\.md/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(root, file));
    expect(offenders).toEqual([]);
    expect(existsSync(join(root, SERVICE_SPEC_PATH))).toBe(true);
  });
});
