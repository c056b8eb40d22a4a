/**
 * Lists every tracked .ts/.js/.mjs/.json line longer than 120 characters (Unicode code points, as Biome's
 * lineWidth counts them), as file:line (length), and exits 1 if there is any. Part of `npm run lint`.
 * Left out: package-lock.json, schema/*.json, test/fixtures/ and interop/expectations/ (generated or recorded).
 * `tsx scripts/check-line-length.ts [DIR]` checks the git work tree at DIR (default: the current directory).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const MAX_LINE_LENGTH = 120;

const CHECKED = /\.(ts|js|mjs|json)$/;
const EXCLUDED = [
  /(^|\/)package-lock\.json$/,
  /^schema\/[^/]*\.json$/,
  /^test\/fixtures\//,
  /^interop\/expectations\//,
];

/** Whether a repository-relative path is checked. */
export function isChecked(path: string): boolean {
  return CHECKED.test(path) && !EXCLUDED.some((re) => re.test(path));
}

/** The lines of a text longer than the limit, as 1-based line numbers with their lengths in code points. */
export function longLines(text: string, max = MAX_LINE_LENGTH): { line: number; length: number }[] {
  const found: { line: number; length: number }[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    const length = [...line].length;
    if (length > max) found.push({ line: i + 1, length });
  });
  return found;
}

/** file:line (length) for every too-long line in the tracked, checked files of the git work tree at dir. */
export function checkTree(dir: string, max = MAX_LINE_LENGTH): string[] {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: dir, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    .split('\0')
    .filter((f) => f && isChecked(f));
  return files.flatMap((file) => {
    let text: string;
    try {
      text = readFileSync(join(dir, file), 'utf8');
    } catch {
      // Tracked but deleted in the work tree: nothing to check.
      return [];
    }
    return longLines(text, max).map((l) => `${file}:${l.line} (${l.length} characters)`);
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const problems = checkTree(process.argv[2] ?? process.cwd());
  for (const p of problems) console.error(p);
  if (problems.length) {
    console.error(`check-line-length: ${problems.length} line(s) longer than ${MAX_LINE_LENGTH} characters`);
    process.exit(1);
  }
  console.log(`check-line-length: no line longer than ${MAX_LINE_LENGTH} characters`);
}
