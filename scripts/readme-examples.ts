/**
 * `npm run readme-examples`: the documentation shows example files verbatim. In README.md,
 * CONTRIBUTING.md and every markdown page under docs/, between `<!-- example: PATH -->` and
 * `<!-- /example -->` stands a fenced block with the content of PATH (relative to the repository
 * root); this script rewrites those blocks from the files. test/docs/readme-examples.test.ts checks
 * that they are in step; the tests of each example run it (e.g. test/reference/fixture.test.ts).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const MARKED = /<!-- example: (\S+) -->\n([\s\S]*?)<!-- \/example -->/g;
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * The fenced block a page shows for an example file's content (the fence names the language by the file's
 * extension).
 */
export function exampleBlock(content: string, path = 'example.ts'): string {
  const language = /\.ya?ml$/.test(path) ? 'yaml' : 'ts';
  return `\`\`\`${language}\n${content.replace(/\n?$/, '\n')}\`\`\`\n`;
}

/** Every marked example in a page's text: its path and the block shown. */
export function markedExamples(page: string): { path: string; shown: string }[] {
  return [...page.matchAll(MARKED)].map((m) => ({ path: m[1]!, shown: m[2]! }));
}

/** The page's text with every marked block rewritten from its file (read by `read`). */
export function withExamples(page: string, read: (path: string) => string): string {
  return page.replace(
    MARKED,
    (_, path: string) => `<!-- example: ${path} -->\n${exampleBlock(read(path), path)}<!-- /example -->`,
  );
}

/** The documentation pages, relative to `root`: README.md, CONTRIBUTING.md and docs/**\/*.md. */
export function docPages(root = ROOT): string[] {
  const top = ['README.md', 'CONTRIBUTING.md'].filter((page) => existsSync(join(root, page)));
  const docs = readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md'))
    .map((file) =>
      relative(root, join(root, 'docs', file))
        .split('\\')
        .join('/'),
    )
    .sort();
  return [...top, ...docs];
}

/** Every marked example of every documentation page. */
export function docExamples(root = ROOT): { page: string; path: string; shown: string }[] {
  return docPages(root).flatMap((page) =>
    markedExamples(readFileSync(join(root, page), 'utf8')).map((example) => ({ page, ...example })),
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const page of docPages()) {
    const file = join(ROOT, page);
    const before = readFileSync(file, 'utf8');
    const after = withExamples(before, (path) => readFileSync(join(ROOT, path), 'utf8'));
    if (before !== after) {
      writeFileSync(file, after);
      console.log(`${page}: examples rewritten`);
    }
  }
  console.log('every example shown in the docs is in step with its file');
}
