/**
 * The frozen list of MCP authorization sentences each MCP profile judges (issue 44; docs/catalog.md, "MCP
 * authorization"; docs/mcp.md). For each revision of the MCP Authorization text (2025-06-18, 2025-11-25 and the newest,
 * 2026-07-28, which splits the text into four pages), every sentence with a BCP 14 keyword that binds the
 * authorization server or the MCP server as a protected resource, and the few client sentences a scenario cites for
 * context: its quote, the heading it sits under (exactly: a scenario cites `{ spec: 'MCP <rev>', section: heading }`),
 * its keyword, whom it binds, and what judges it — scenario ids, or why nothing can ("not applicable").
 *
 * The profile `mcp-<rev>` judges exactly the sentences of that revision: an MCP requirement counts only in its own
 * revision's profile (profileCounts, harness/model/requirements.ts), and test/docs/mcp-sentences.test.ts holds every
 * scenario citing a revision to a sentence of that revision here, and every sentence here to a scenario that cites it.
 *
 * Quotes are the text as the page renders it: bold markers and link targets dropped (a link's text kept), inline code
 * kept, whitespace collapsed. A sentence the revisions word identically under the same heading is one entry.
 */
import { MCP_REVISIONS, type McpRevision, type McpSentence } from './mcp-sentence.ts';
import { MCP_AS_SENTENCES } from './mcp-sentences-as.ts';
import { MCP_RS_SENTENCES } from './mcp-sentences-rs.ts';
import { MCP_SECURITY_SENTENCES } from './mcp-sentences-security.ts';
import type { ProfileName } from './results.ts';

export {
  type Binds,
  type Keyword,
  keywordLevel,
  MCP_NEWEST,
  MCP_REVISIONS,
  type McpRevision,
  type McpSentence,
  sentenceParty,
} from './mcp-sentence.ts';

/** The 2026-07-28 text's pages (below basic/authorization) and their headings; the page title first. */
export const MCP_2026_PAGES: Readonly<Record<string, readonly string[]>> = Object.freeze({
  '': Object.freeze([
    'Authorization',
    'Introduction',
    'Purpose and Scope',
    'Protocol Requirements',
    'Standards Compliance',
    'Roles',
    'Overview',
    'Authorization Server Discovery',
    'Client Registration',
    'Scope Selection Strategy',
    'Authorization Flow Steps',
    'Authorization Response Validation',
    'Resource Parameter Implementation',
    'Canonical Server URI',
    'Access Token Usage',
    'Token Requirements',
    'Token Handling',
    'Refresh Tokens',
    'Error Handling',
    'Scope Challenge Handling',
    'Runtime Insufficient Scope Errors',
    'Step-Up Authorization Flow',
    'Security Considerations',
    'MCP Authorization Extensions',
  ]),
  'authorization-server-discovery': Object.freeze([
    'Authorization Server Discovery',
    'Authorization Server Location',
    'Protected Resource Metadata Discovery Requirements',
    'Authorization Server Metadata Discovery',
    'Sequence Diagram',
  ]),
  'client-registration': Object.freeze([
    'Client Registration',
    'Client ID Metadata Documents',
    'Implementation Requirements',
    'Example Metadata Document',
    'Client ID Metadata Documents Flow',
    'Advertising CIMD Support',
    'Pre-registration',
    'Dynamic Client Registration',
    'Application Type and Redirect URI Constraints',
    'Authorization Server Binding',
  ]),
  'security-considerations': Object.freeze([
    'Authorization Security Considerations',
    'Token Audience Binding and Validation',
    'Token Theft',
    'Communication Security',
    'Authorization Code Protection',
    'Mix-Up Attacks',
    'Open Redirection',
    'Client ID Metadata Document Security',
    'Authorization Server Abuse Protection',
    'Localhost Redirect URI Risks',
    'Trust Policies',
    'Confused Deputy Problem',
    'Access Token Privilege Restriction',
  ]),
});

/**
 * The page of a revision's text that holds a heading: '' for the one page of 2025-06-18 and 2025-11-25 and the
 * overview page of 2026-07-28, a sub-page's name otherwise ('Authorization Server Discovery' is a heading of the
 * overview page as well as a sub-page's title: the overview's heading wins, as the page's first).
 */
export function mcpPageOf(revision: McpRevision, heading: string): string {
  if (revision !== '2026-07-28') return '';
  for (const [page, headings] of Object.entries(MCP_2026_PAGES)) if (headings.includes(heading)) return page;
  return '';
}

/** Whether a heading is a page's title (its link then has no fragment). */
export function isMcpPageTitle(revision: McpRevision, heading: string): boolean {
  const page = mcpPageOf(revision, heading);
  return page === '' ? heading === 'Authorization' : MCP_2026_PAGES[page]?.[0] === heading;
}

/** The entry frozen, with its lists (shared lists of revisions freeze once). */
function freezeSentence(s: McpSentence): McpSentence {
  Object.freeze(s.revisions);
  if (s.judgedBy) Object.freeze(s.judgedBy);
  return Object.freeze(s);
}

/** Every sentence of every revision, frozen. */
export const MCP_SENTENCES: readonly McpSentence[] = Object.freeze(
  [...MCP_AS_SENTENCES, ...MCP_RS_SENTENCES, ...MCP_SECURITY_SENTENCES].map(freezeSentence),
);

/** The sentences a revision's text holds: what the profile `mcp-<rev>` judges. */
export function mcpSentences(revision: McpRevision): readonly McpSentence[] {
  return MCP_SENTENCES.filter((s) => s.revisions.includes(revision));
}

/** The revision an MCP profile holds the server to, or undefined for the other profiles. */
export function mcpRevisionOf(profile: ProfileName): McpRevision | undefined {
  return MCP_REVISIONS.find((r) => profile === `mcp-${r}`);
}
