/**
 * What an entry of the MCP sentence list is (harness/model/mcp-sentences.ts holds the list): the revisions, the
 * keywords, whom a sentence binds, and the reasons several sentences share for being not applicable.
 */
import type { Level } from './results.ts';

export const MCP_REVISIONS = ['2025-06-18', '2025-11-25', '2026-07-28'] as const;
export type McpRevision = (typeof MCP_REVISIONS)[number];
/** The newest revision: what `--profile mcp` means. */
export const MCP_NEWEST: McpRevision = '2026-07-28';

/** The revision lists the entries share. */
export const REVISIONS = {
  all: MCP_REVISIONS,
  first: ['2025-06-18'],
  beforeNewest: ['2025-06-18', '2025-11-25'],
  /** The revisions with Client ID Metadata Documents. */
  cimd: ['2025-11-25', '2026-07-28'],
  nov: ['2025-11-25'],
  newest: ['2026-07-28'],
} as const satisfies Record<string, readonly McpRevision[]>;

export type Keyword = 'MUST' | 'MUST NOT' | 'SHOULD' | 'SHOULD NOT' | 'MAY';
/** Whom a sentence binds: the AS, the MCP server (the protected resource), both ("implementations"), or the client. */
export type Binds = 'authorization server' | 'MCP server' | 'implementations' | 'client';

interface SentenceBase {
  /** Stable and unique, `topic/name` (a slash: never mistaken for a scenario id), e.g. `prm/authorization-servers`. */
  readonly id: string;
  /** The revisions that carry this sentence, word for word, under this heading. */
  readonly revisions: readonly McpRevision[];
  /** The heading title it sits under, exactly (a scenario's `section`); a 2026-07-28 sub-page's title before any. */
  readonly section: string;
  readonly keyword: Keyword;
  readonly binds: Binds;
  /** The words that introduce a list item (e.g. "For Authorization Servers:"), when the quote is an item. */
  readonly lead?: string;
  readonly quote: string;
  /** How far the scenarios judge it, when not wholly. */
  readonly note?: string;
}

/** A sentence judged by scenarios (each cites the revision and this heading), or by none, with the reason. */
export type McpSentence = SentenceBase &
  (
    | { readonly judgedBy: readonly string[]; readonly notApplicable?: undefined }
    | { readonly judgedBy?: undefined; readonly notApplicable: string }
  );

/** The requirement level of a keyword (MUST NOT is a MUST, SHOULD NOT a SHOULD). */
export function keywordLevel(keyword: Keyword): Level {
  return keyword.startsWith('MUST') ? 'MUST' : keyword.startsWith('SHOULD') ? 'SHOULD' : 'MAY';
}

/** The party of a requirement citing the sentence: every sentence but a client's binds the server. */
export function sentenceParty(s: Pick<McpSentence, 'binds'>): 'server' | 'client' {
  return s.binds === 'client' ? 'client' : 'server';
}

/** Reasons several sentences share for being not applicable (and a note: `advertised`). */
export const NOT_APPLICABLE = {
  whole:
    'a whole document by reference: the catalog judges its rules one by one (the RFC 6749, RFC 7636, RFC 9700 and ' +
    'OAuth 2.1 rows), not this sentence',
  may: 'a MAY: a server that does not do it breaks nothing',
  dcr:
    'the harness registers by RFC 7591 where the server offers it and judges that by the registration rows; a ' +
    'server without a registration endpoint is not failed for it (a client can be pre-registered in the config)',
  advertised:
    'judged where the metadata advertises client_id_metadata_document_supported; without it the CIMD scenarios are ' +
    'skipped, and not supporting CIMD (a SHOULD) is not warned',
  transport: 'the harness speaks to an MCP server over HTTP only',
  listed: 'the sentences of that text are listed one by one here, each with what judges it',
  page: 'what a consent page shows a person is not judged: no scenario reads the wording of a page',
  ssrf:
    "judging it would aim the server at addresses beyond its own origin and the harness's documents, which the " +
    'harness never does (docs/security.md)',
  scopes:
    'the harness knows no operation of the MCP server that needs a scope, so it cannot tell a right scope from a ' +
    'wrong one; what it cannot know is never held against the server',
  upstream: 'binds what the MCP server does toward upstream APIs, which the harness does not see',
  resource:
    'binds the client: the harness sends resource in the authorization and token requests; what the authorization ' +
    'server does with it is judged by RFC 8707 (`resource.code-flow-audience`, `resource.audience`)',
} as const;
