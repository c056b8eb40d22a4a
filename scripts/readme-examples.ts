/**
 * `npm run readme-examples`: README.md shows example files verbatim. Between
 * `<!-- example: PATH -->` and `<!-- /example -->` it holds a fenced block with PATH's content;
 * this script rewrites those blocks from the files. test/reference/fixture.test.ts checks that
 * they are in step and runs the examples.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const MARKED = /<!-- example: (\S+) -->\n([\s\S]*?)<!-- \/example -->/g;

/**
 * The fenced block README.md shows for an example file's content (the fence names the language by the file's
 * extension).
 */
export function exampleBlock(content: string, path = 'example.ts'): string {
  const language = /\.ya?ml$/.test(path) ? 'yaml' : 'ts';
  return `\`\`\`${language}\n${content.replace(/\n?$/, '\n')}\`\`\`\n`;
}

/** Every marked example in the README: its path and the block shown. */
export function readmeExamples(readme: string): { path: string; shown: string }[] {
  return [...readme.matchAll(MARKED)].map((m) => ({ path: m[1]!, shown: m[2]! }));
}

/** The README with every marked block rewritten from its file (read by `read`). */
export function withExamples(readme: string, read: (path: string) => string): string {
  return readme.replace(
    MARKED,
    (_, path: string) => `<!-- example: ${path} -->\n${exampleBlock(read(path), path)}<!-- /example -->`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = new URL('..', import.meta.url);
  const file = new URL('README.md', root);
  const before = readFileSync(file, 'utf8');
  const after = withExamples(before, (path) => readFileSync(fileURLToPath(new URL(path, root)), 'utf8'));
  writeFileSync(file, after);
  console.log(before === after ? 'README.md examples already in step' : 'README.md examples rewritten');
}
