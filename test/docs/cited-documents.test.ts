/**
 * A comment that cites a document cites one the repository holds (tests aside): every `docs/….md` (or README.md,
 * CONTRIBUTING.md) named in a source file exists, and no source file cites a design document the repository does not
 * contain ("DESIGN §n"), so a reader can follow every citation.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
/**
 * The tracked TypeScript and JavaScript sources but the tests (git ls-files: nothing generated or installed); tests
 * may name a missing page on purpose (the link checker's own fixtures).
 */
const sources = execFileSync('git', ['ls-files', '*.ts', '*.js', '*.mjs'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((file) => file && !file.startsWith('test/'));

/** The documents a text cites by path: docs/x.md, docs/sub/x.md, README.md, CONTRIBUTING.md. */
function citedDocuments(text: string): string[] {
  return [...text.matchAll(/\b((?:docs\/[\w./-]+?|README|CONTRIBUTING)\.md)\b/g)].map((m) => m[1]!);
}

describe('documents cited in the code', () => {
  it('finds the citations it checks (a synthetic text)', () => {
    expect(citedDocuments('see docs/login.md, "Sessions", and README.md; not docs/x.mdx')).toEqual([
      'docs/login.md',
      'README.md',
    ]);
  });

  it('every cited document exists in the repository', () => {
    const missing = sources.flatMap((file) =>
      citedDocuments(readFileSync(join(root, file), 'utf8'))
        .filter((doc) => !existsSync(join(root, doc)))
        .map((doc) => `${file}: ${doc}`),
    );
    expect(missing).toEqual([]);
  });

  it('no source cites a design document the repository does not hold (DESIGN §n)', () => {
    const cites = sources.filter((file) => /\bDESIGN §/.test(readFileSync(join(root, file), 'utf8')));
    expect(cites).toEqual([]);
  });
});
