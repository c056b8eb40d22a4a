/**
 * Every relative link of README.md, CONTRIBUTING.md and docs/**\/*.md resolves: the file exists and
 * an anchor names a heading (or an `<a id>`) of the page it points at (GitHub's slugs, github-slugger; links and
 * headings read by markdown-it, so links inside code are not links).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import GithubSlugger from 'github-slugger';
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { docPages } from '../../scripts/readme-examples.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const md = new MarkdownIt({ html: true });
type Token = ReturnType<typeof md.parse>[number];

const flat = (tokens: Token[]): Token[] => tokens.flatMap((t) => [t, ...flat(t.children ?? [])]);

function parse(page: string): { anchors: Set<string>; links: string[] } {
  const tokens = flat(md.parse(readFileSync(join(root, page), 'utf8'), {}));
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  const links: string[] = [];
  tokens.forEach((t, i) => {
    if (t.type === 'heading_open') anchors.add(slugger.slug(tokens[i + 1]?.content ?? ''));
    if (t.type === 'link_open') links.push(String(t.attrGet('href') ?? ''));
    // <a id="…"></a> anchors, as docs/service-spec.md sets one per requirement
    if (t.type === 'html_inline' || t.type === 'html_block')
      for (const m of t.content.matchAll(/<a\s[^>]*\b(?:id|name)="([^"]+)"/g)) anchors.add(m[1]!);
  });
  return { anchors, links };
}

/** Why `href` on `page` does not resolve, or undefined when it does. */
function broken(page: string, href: string, parsed: Map<string, ReturnType<typeof parse>>): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href)) return undefined; // https:, mailto: …
  const [path = '', anchor] = href.split('#', 2);
  const target =
    path === ''
      ? page
      : normalize(join(dirname(page), decodeURIComponent(path)))
          .split('\\')
          .join('/');
  if (target.startsWith('..')) return 'leaves the repository';
  if (!existsSync(join(root, target))) return `no file ${target}`;
  if (anchor === undefined || !target.endsWith('.md')) return undefined;
  if (!parsed.has(target)) parsed.set(target, parse(target));
  return parsed.get(target)?.anchors.has(anchor) ? undefined : `no heading #${anchor} in ${target}`;
}

describe('links in the docs', () => {
  const pages = docPages();
  const parsed = new Map(pages.map((page) => [page, parse(page)]));

  it('cover README.md, CONTRIBUTING.md and the docs/ pages', () => {
    expect(pages).toEqual(expect.arrayContaining(['README.md', 'docs/catalog.md', 'docs/ARCHITECTURE.md']));
  });

  it.each(pages)('%s: every relative link and anchor resolves', (page) => {
    const { links } = parsed.get(page)!;
    const problems = links.flatMap((href) => {
      const why = broken(page, href, parsed);
      return why ? [`${href}: ${why}`] : [];
    });
    expect(problems).toEqual([]);
  });

  it('finds a broken anchor and a missing file (the check can fail)', () => {
    expect(broken('README.md', '#no-such-heading', parsed)).toMatch(/no heading/);
    expect(broken('README.md', 'docs/no-such-page.md', parsed)).toMatch(/no file/);
    expect(broken('README.md', 'docs/catalog.md#the-requirement-audit-table', parsed)).toBeUndefined();
  });
});
