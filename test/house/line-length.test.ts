import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkTree, isChecked, longLines } from '../../scripts/check-line-length.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A git work tree with the given files, all tracked. */
function repo(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'line-length-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  execFileSync('git', ['init', '-q'], { cwd: dir });
  execFileSync('git', ['add', '-A'], { cwd: dir });
  return dir;
}

const script = join(import.meta.dirname, '../../scripts/check-line-length.ts');
const tsx = join(import.meta.dirname, '../../node_modules/.bin/tsx');

describe('scripts/check-line-length.ts', () => {
  it('counts code points, not bytes or UTF-16 units', () => {
    expect(longLines(`${'§'.repeat(120)}\n${'a'.repeat(121)}\n${'😀'.repeat(120)}`)).toEqual([
      { line: 2, length: 121 },
    ]);
  });

  it('checks .ts/.js/.mjs/.json but leaves out the lock file, schemas, fixtures and recorded expectations', () => {
    expect(['a.ts', 'b/c.js', 'd.mjs', 'package.json'].every(isChecked)).toBe(true);
    expect(
      ['package-lock.json', 'schema/x.json', 'test/fixtures/a.ts', 'interop/expectations/k.json', 'README.md'].some(
        isChecked,
      ),
    ).toBe(false);
  });

  it('fails on a tree with one long line, naming file:line, and passes a clean one', { timeout: 60_000 }, () => {
    const long = repo({ 'ok.ts': 'const a = 1;\n', 'src/long.ts': `const a = 1;\n// ${'x'.repeat(119)}\n` });
    expect(checkTree(long)).toEqual(['src/long.ts:2 (122 characters)']);
    const failed = spawnSync(tsx, [script, long], { encoding: 'utf8' });
    expect(failed.status).toBe(1);
    expect(failed.stderr).toContain('src/long.ts:2 (122 characters)');

    const clean = repo({ 'ok.ts': `// ${'x'.repeat(117)}\n`, 'schema/big.json': `"${'x'.repeat(300)}"\n` });
    expect(checkTree(clean)).toEqual([]);
    const passed = spawnSync(tsx, [script, clean], { encoding: 'utf8' });
    expect(passed.status).toBe(0);
  });
});
