/** The documentation shows its example files verbatim (`npm run readme-examples` copies them in). */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { docExamples, exampleBlock, markedExamples, withExamples } from '../../scripts/readme-examples.ts';

const root = new URL('../../', import.meta.url);
const examples = docExamples();

describe('examples in the docs', () => {
  it('are marked in the pages that show them', () => {
    expect(examples.map((e) => `${e.page} ${e.path}`)).toEqual(
      expect.arrayContaining([
        'docs/fixture.md docs/examples/fixture-openid-client.ts',
        'docs/ci.md docs/ci/github-workflow.yml',
        'docs/ci.md docs/ci/gitlab-ci.yml',
      ]),
    );
  });

  it.each(examples.map((e) => [e.page, e.path, e.shown]))('%s shows %s verbatim', (_page, path, shown) => {
    expect(existsSync(new URL(path, root))).toBe(true);
    expect(shown).toBe(exampleBlock(readFileSync(new URL(path, root), 'utf8'), path));
  });

  it('are rewritten from their files by withExamples', () => {
    const page = 'text\n<!-- example: a.yml -->\n```yaml\nold: 1\n```\n<!-- /example -->\nmore\n';
    const rewritten = withExamples(page, () => 'new: 2');
    expect(markedExamples(rewritten)).toEqual([{ path: 'a.yml', shown: '```yaml\nnew: 2\n```\n' }]);
    expect(rewritten.endsWith('<!-- /example -->\nmore\n')).toBe(true);
  });
});
