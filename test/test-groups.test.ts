/**
 * Every test file belongs to exactly one test group (vitest.config.ts), and every group has its
 * `npm run test:<group>` script: a new file is never silently left out of `npm test`'s groups, nor
 * run twice. The groups are read from vitest itself (`vitest list`), not from a copy of the globs.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');

/** What `vitest list` says: each test file with the group (project) it runs in. */
async function listed(): Promise<{ file: string; projectName: string }[]> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST')));
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'list', '--filesOnly', '--json'],
    { cwd: ROOT, env: { ...env, NO_COLOR: '1' }, maxBuffer: 16 * 1024 * 1024, timeout: 120_000 },
  );
  return JSON.parse(stdout.slice(stdout.indexOf('[')));
}

describe('test groups', () => {
  it('every test file is in exactly one group, and every group has its npm script', async () => {
    const files = readdirSync(join(ROOT, 'test'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => join('test', f))
      .sort();
    expect(files).toContain('test/test-groups.test.ts');
    const groupsOf = new Map<string, string[]>(files.map((f) => [f, []]));
    const entries = await listed();
    for (const { file, projectName } of entries) {
      const path = relative(ROOT, file);
      expect(groupsOf.has(path), `vitest lists ${path}, which is not a test file under test/`).toBe(true);
      groupsOf.get(path)?.push(projectName);
    }
    const wrong = [...groupsOf].filter(([, groups]) => groups.length !== 1).map(([f, g]) => `${f}: [${g.join(', ')}]`);
    expect(wrong, 'files in no group or in several').toEqual([]);
    expect(entries).toHaveLength(files.length);

    const scripts: Record<string, string> = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts;
    const groups = [...new Set(entries.map((e) => e.projectName))].sort();
    expect(groups).toEqual(['browser', 'interop', 'matrix', 'reference', 'system', 'unit']);
    for (const group of groups)
      expect(scripts[`test:${group}`]).toMatch(new RegExp(`^vitest run --project ${group}( |$)`));
    // npm test runs every group in one vitest run (in parallel, as before the groups), after the type check and lint.
    expect(scripts.test).toBe('npm run typecheck && npm run lint && vitest run');
  }, 180_000);
});
