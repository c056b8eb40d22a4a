/**
 * The "MCP authorization" tables of docs/catalog.md, rendered from the frozen sentence list
 * (harness/model/mcp-sentences.ts) by `npm run catalog`: per revision, each sentence quoted with its heading, keyword
 * and party, and the scenarios that judge it or why none can.
 */
import { keywordLevel, MCP_REVISIONS, type McpSentence, mcpSentences } from '../harness/model/mcp-sentences.ts';
import { requirementUrl } from '../harness/model/requirements.ts';

export const MCP_BEGIN = '<!-- mcp-sentences:begin (npm run catalog) -->';
export const MCP_END = '<!-- mcp-sentences:end -->';

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();

function judged(s: McpSentence): string {
  const verdict = s.judgedBy ? s.judgedBy.map((id) => `\`${id}\``).join(', ') : `not applicable: ${s.notApplicable}`;
  return s.note ? `${verdict} (${s.note})` : verdict;
}

function row(s: McpSentence, revision: (typeof MCP_REVISIONS)[number]): string {
  const url = requirementUrl({ spec: `MCP ${revision}`, section: s.section });
  const heading = url ? `[${s.section}](${url})` : s.section;
  const quote = `${s.lead ? `*${s.lead}* … ` : ''}“${s.quote}”`;
  const binds = s.binds === 'client' ? 'client (cited for context)' : s.binds;
  return `| \`${s.id}\` | ${heading} | ${s.keyword} | ${binds} | ${cell(quote)} | ${cell(judged(s))} |`;
}

/** The tables: one per revision, newest first (the `--profile mcp` default). */
export function mcpCatalogTables(): string {
  return [...MCP_REVISIONS]
    .reverse()
    .flatMap((revision) => {
      const sentences = mcpSentences(revision);
      const judgedCount = sentences.filter((s) => s.judgedBy).length;
      const musts = sentences.filter((s) => s.judgedBy && keywordLevel(s.keyword) === 'MUST').length;
      return [
        `### MCP ${revision} (profile \`mcp-${revision}\`)`,
        '',
        `${sentences.length} sentences; ${judgedCount} judged by scenarios (${musts} of them MUST or MUST NOT), ` +
          `${sentences.length - judgedCount} not applicable.`,
        '',
        '| sentence | heading | keyword | binds | quote | judged by |',
        '| --- | --- | --- | --- | --- | --- |',
        ...sentences.map((s) => row(s, revision)),
        '',
      ];
    })
    .join('\n')
    .trimEnd();
}
