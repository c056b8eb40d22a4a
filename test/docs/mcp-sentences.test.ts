/**
 * The frozen list of MCP authorization sentences (harness/model/mcp-sentences.ts) and the catalog agree: every
 * scenario requirement citing an MCP revision is a sentence of that revision under that heading (and, binding the
 * server, one the list says the scenario judges); every sentence judged by a scenario names one that exists and cites
 * that revision. With MCP_SPEC_GIT_DIR set to a clone of modelcontextprotocol/modelcontextprotocol (its git
 * directory), every quote is checked against the revision's text, under its heading.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mcpRequirement } from '../../harness/model/mcp-requirement.ts';
import {
  isMcpPageTitle,
  keywordLevel,
  MCP_2026_PAGES,
  MCP_REVISIONS,
  MCP_SENTENCES,
  type McpRevision,
  mcpPageOf,
  mcpSentences,
  sentenceParty,
} from '../../harness/model/mcp-sentences.ts';
import { mcpRevision } from '../../harness/model/requirements.ts';
import { CATALOG_PAGE } from '../../scripts/catalog.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';

const byId = new Map(BUILT_IN_SCENARIOS.map((s) => [s.id, s]));

describe('the MCP sentence list', () => {
  it('is frozen, with unique ids, each sentence judged by scenarios or not applicable with a reason', () => {
    expect(Object.isFrozen(MCP_SENTENCES)).toBe(true);
    const ids = MCP_SENTENCES.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const s of MCP_SENTENCES) {
      expect(Object.isFrozen(s) && Object.isFrozen(s.revisions), s.id).toBe(true);
      expect(s.revisions.length, s.id).toBeGreaterThan(0);
      expect(
        s.revisions.every((r) => MCP_REVISIONS.includes(r)),
        s.id,
      ).toBe(true);
      if (s.judgedBy) expect(s.judgedBy.length, s.id).toBeGreaterThan(0);
      else expect(s.notApplicable.length, s.id).toBeGreaterThan(10);
      // the keyword is the quote's own
      expect(s.quote, s.id).toMatch(new RegExp(`\\b${s.keyword}\\b`));
    }
  });

  it('gives every revision its sentences, each 2026-07-28 heading on one of its pages', () => {
    for (const r of MCP_REVISIONS) expect(mcpSentences(r).length, r).toBeGreaterThan(20);
    const headings = new Set(Object.values(MCP_2026_PAGES).flat());
    for (const s of mcpSentences('2026-07-28')) expect(headings.has(s.section), s.id).toBe(true);
    expect(mcpPageOf('2026-07-28', 'Trust Policies')).toBe('security-considerations');
    expect(isMcpPageTitle('2026-07-28', 'Client Registration')).toBe(false);
    expect(isMcpPageTitle('2026-07-28', 'Authorization Security Considerations')).toBe(true);
  });

  it('builds a scenario’s citation from a sentence, and refuses a sentence its revision lacks', () => {
    expect(mcpRequirement('theft/rotate-refresh', '2025-06-18', { roles: ['public'] })).toEqual({
      spec: 'MCP 2025-06-18',
      section: 'Token Theft',
      level: 'MUST',
      party: 'server',
      roles: ['public'],
    });
    expect(() => mcpRequirement('iss/include', '2025-11-25')).toThrow(/no sentence iss\/include/);
    expect(keywordLevel('SHOULD NOT')).toBe('SHOULD');
    expect(sentenceParty({ binds: 'implementations' })).toBe('server');
  });
});

describe('the MCP sentence list and the catalog', () => {
  it('docs/catalog.md quotes every sentence in the table of each revision that has it', () => {
    const page = readFileSync(CATALOG_PAGE, 'utf8');
    for (const revision of MCP_REVISIONS) {
      const table = page.split(`### MCP ${revision} `)[1]?.split('\n### ')[0] ?? '';
      for (const s of mcpSentences(revision)) {
        const row = table.split('\n').find((line) => line.startsWith(`| \`${s.id}\` |`));
        expect(row, `${revision} ${s.id}`).toContain(`“${s.quote}”`);
      }
    }
  });

  it('every scenario requirement citing an MCP revision is a sentence of it under that heading', () => {
    const problems: string[] = [];
    for (const scenario of BUILT_IN_SCENARIOS)
      for (const r of scenario.requirements) {
        const revision = mcpRevision(r.spec);
        if (!revision) continue;
        const there = mcpSentences(revision).filter((s) => s.section === r.section);
        const cite = `${scenario.id} cites ${r.spec} › ${r.section}`;
        if (!there.length) problems.push(`${cite}: the ${revision} list has no sentence under that heading`);
        else if (r.party === 'server' && !there.some((s) => s.judgedBy?.includes(scenario.id)))
          problems.push(`${cite}: no sentence under that heading names ${scenario.id} in judgedBy`);
        else if (!there.some((s) => keywordLevel(s.keyword) === r.level && sentenceParty(s) === r.party))
          problems.push(`${cite} as a ${r.level} of the ${r.party}: no sentence there has that level and party`);
      }
    expect(problems).toEqual([]);
  });

  it('every sentence judged by a scenario names one that exists and cites that revision', () => {
    const problems: string[] = [];
    for (const s of MCP_SENTENCES)
      for (const id of s.judgedBy ?? []) {
        const scenario = byId.get(id);
        if (!scenario) {
          problems.push(`${s.id}: no scenario ${id} in the catalog`);
          continue;
        }
        for (const revision of s.revisions)
          if (!scenario.requirements.some((r) => r.spec === `MCP ${revision}`))
            problems.push(`${s.id}: ${id} judges it but cites no MCP ${revision} requirement`);
      }
    expect(problems).toEqual([]);
  });
});

/** The text as the page renders it: bold markers and link targets dropped, whitespace collapsed. */
function rendered(text: string): string {
  return text
    .replace(/\*\*/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\[[^\]]*\]/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Each heading's rendered text (up to the next heading) of an .mdx page; text before any heading under `title`. */
function sectionsOf(mdx: string, title: string): Map<string, string> {
  const out = new Map<string, string>();
  let heading = title;
  let lines: string[] = [];
  let fenced = false;
  const flush = () => out.set(heading, `${out.get(heading) ?? ''} ${rendered(lines.join('\n'))}`);
  for (const line of mdx.replace(/^---\n[\s\S]*?\n---\n/, '').split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const m = fenced ? null : /^#{1,6} (.+)$/.exec(line);
    if (!m) lines.push(line);
    else {
      flush();
      heading = m[1]!.trim();
      lines = [];
    }
  }
  flush();
  return out;
}

/**
 * The sentences whose quote (and lead) the revision's text does not hold under their heading, on the page
 * mcpPageOf names (pages by name: '' the one page of the older revisions, 2026-07-28's overview).
 */
function misquoted(pages: Record<McpRevision, ReadonlyMap<string, Map<string, string>>>): string[] {
  return MCP_SENTENCES.flatMap((s) =>
    s.revisions.flatMap((r) => {
      const text = pages[r].get(mcpPageOf(r, s.section))?.get(s.section);
      if (text === undefined) return [`${s.id} (${r}, ${s.section}): no such heading`];
      const found = text.includes(s.quote) && (!s.lead || text.includes(s.lead));
      return found ? [] : [`${s.id} (${r}, ${s.section}): no such quote`];
    }),
  );
}

describe('the quotes', () => {
  it('are found in a synthetic page only under their heading (the check can fail)', () => {
    const page = sectionsOf('---\ntitle: A\n---\n## Token Theft\n\nAuthorization servers **SHOULD** issue\n', 'A');
    expect(page.get('Token Theft')).toContain('Authorization servers SHOULD issue');
    const one = new Map([['', page]]);
    const pages = { '2025-06-18': one, '2025-11-25': one, '2026-07-28': one };
    const problems = misquoted(pages);
    expect(problems).toContain('redirect/exact (2025-06-18, Open Redirection): no such heading');
    expect(problems).toContain('theft/rotate-refresh (2025-06-18, Token Theft): no such quote');
  });

  const gitDir = process.env.MCP_SPEC_GIT_DIR;
  it.skipIf(!gitDir)('are the revisions’ text, word for word, under their headings (MCP_SPEC_GIT_DIR)', () => {
    const show = (path: string) =>
      execFileSync('git', ['--git-dir', gitDir!, 'show', `HEAD:docs/specification/${path}`], { encoding: 'utf8' });
    const onePage = (path: string) => new Map([['', sectionsOf(show(path), 'Authorization')]]);
    const pages = {
      '2025-06-18': onePage('2025-06-18/basic/authorization.mdx'),
      '2025-11-25': onePage('2025-11-25/basic/authorization.mdx'),
      '2026-07-28': new Map(
        Object.entries(MCP_2026_PAGES).map(([page, headings]) => [
          page,
          sectionsOf(show(`2026-07-28/basic/authorization/${page || 'index'}.mdx`), headings[0]!),
        ]),
      ),
    };
    // every heading of 2026-07-28's pages is in MCP_2026_PAGES, on its page
    for (const [page, headings] of Object.entries(MCP_2026_PAGES))
      expect([...(pages['2026-07-28'].get(page)?.keys() ?? [])].sort(), page).toEqual([...headings].sort());
    expect(misquoted(pages)).toEqual([]);
  });
});
