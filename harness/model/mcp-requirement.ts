/**
 * A scenario's citation of an MCP sentence (harness/model/mcp-sentences.ts), built from the list so that its heading,
 * level and party are the sentence's own: one requirement per revision, e.g.
 * `mcp_2025_11_25: mcpRequirement('theft/rotate-refresh', '2025-11-25', { roles: ['public'] })`.
 */
import { keywordLevel, type McpRevision, sentenceParty } from './mcp-sentence.ts';
import { MCP_SENTENCES } from './mcp-sentences.ts';
import type { Requirement } from './requirements.ts';

/** The requirement citing sentence `id` of `revision`; throws when the list has no such sentence in that revision. */
export function mcpRequirement(
  id: string,
  revision: McpRevision,
  extra: Pick<Requirement, 'roles' | 'note'> = {},
): Requirement {
  const sentence = MCP_SENTENCES.find((s) => s.id === id);
  if (!sentence?.revisions.includes(revision))
    throw new Error(`the MCP ${revision} authorization text has no sentence ${id} (harness/model/mcp-sentences.ts)`);
  return {
    spec: `MCP ${revision}`,
    section: sentence.section,
    level: keywordLevel(sentence.keyword),
    party: sentenceParty(sentence),
    ...extra,
  };
}
