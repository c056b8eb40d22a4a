/** README.md shows its example files verbatim (`npm run readme-examples` copies them in). */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { exampleBlock, readmeExamples } from '../../scripts/readme-examples.ts';

const root = new URL('../../', import.meta.url);
const examples = readmeExamples(readFileSync(new URL('README.md', root), 'utf8'));

describe('README examples', () => {
  it('are marked in the README', () => {
    expect(examples.map((e) => e.path)).toEqual(
      expect.arrayContaining([
        'docs/examples/fixture-openid-client.ts',
        'docs/ci/github-workflow.yml',
        'docs/ci/gitlab-ci.yml',
      ]),
    );
  });

  it.each(examples.map((e) => [e.path, e.shown]))('%s is shown verbatim', (path, shown) => {
    expect(existsSync(new URL(path, root))).toBe(true);
    expect(shown).toBe(exampleBlock(readFileSync(new URL(path, root), 'utf8'), path));
  });
});
