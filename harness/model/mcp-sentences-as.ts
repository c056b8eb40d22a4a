/**
 * The MCP authorization sentences on the authorization server's discovery and client registration (CIMD, RFC 7591),
 * and the text's general sentences (harness/model/mcp-sentences.ts says what an entry is).
 */
import { NOT_APPLICABLE as NA, REVISIONS as R } from './mcp-sentence.ts';
import type { McpSentence } from './mcp-sentence.ts';

export const MCP_AS_SENTENCES: readonly McpSentence[] = [
  {
    id: 'general/http-transport',
    revisions: R.all,
    section: 'Protocol Requirements',
    keyword: 'SHOULD',
    binds: 'implementations',
    quote: 'Implementations using an HTTP-based transport SHOULD conform to this specification.',
    notApplicable: "the premise of an MCP profile: a run under a revision's profile holds the server to its text",
  },
  {
    id: 'general/stdio-transport',
    revisions: R.all,
    section: 'Protocol Requirements',
    keyword: 'SHOULD NOT',
    binds: 'implementations',
    quote:
      'Implementations using an STDIO transport SHOULD NOT follow this specification, and instead retrieve ' +
      'credentials from the environment.',
    notApplicable: NA.transport,
  },
  {
    id: 'general/other-transports',
    revisions: R.all,
    section: 'Protocol Requirements',
    keyword: 'MUST',
    binds: 'implementations',
    quote:
      'Implementations using alternative transports MUST follow established security best practices for their ' +
      'protocol.',
    notApplicable: NA.transport,
  },
  {
    id: 'overview/oauth-2-1',
    revisions: R.all,
    section: 'Overview',
    keyword: 'MUST',
    binds: 'authorization server',
    quote:
      'Authorization servers MUST implement OAuth 2.1 with appropriate security measures for both confidential and ' +
      'public clients.',
    notApplicable: NA.whole,
  },
  {
    id: 'overview/dcr-should',
    revisions: R.first,
    section: 'Overview',
    keyword: 'SHOULD',
    binds: 'authorization server',
    quote:
      'Authorization servers and MCP clients SHOULD support the OAuth 2.0 Dynamic Client Registration Protocol ' +
      '(RFC7591).',
    notApplicable: NA.dcr,
  },
  {
    id: 'overview/as-metadata',
    revisions: R.first,
    section: 'Overview',
    keyword: 'MUST',
    binds: 'authorization server',
    quote: 'Authorization servers MUST provide OAuth 2.0 Authorization Server Metadata (RFC8414).',
    judgedBy: ['mcp.metadata-discovery'],
  },
  {
    id: 'overview/cimd',
    revisions: R.cimd,
    section: 'Overview',
    keyword: 'SHOULD',
    binds: 'authorization server',
    quote:
      'Authorization servers and MCP clients SHOULD support OAuth Client ID Metadata Documents ' +
      '(draft-ietf-oauth-client-id-metadata-document-00).',
    judgedBy: ['cimd.code-flow'],
    note: NA.advertised,
  },
  {
    id: 'overview/dcr-may',
    revisions: R.cimd,
    section: 'Overview',
    keyword: 'MAY',
    binds: 'authorization server',
    quote:
      'Authorization servers and MCP clients MAY support the OAuth 2.0 Dynamic Client Registration Protocol ' +
      '(RFC7591).',
    notApplicable: NA.may,
  },
  {
    id: 'overview/discovery-mechanism',
    revisions: R.cimd,
    section: 'Overview',
    keyword: 'MUST',
    binds: 'authorization server',
    quote: 'MCP authorization servers MUST provide at least one of the following discovery mechanisms:',
    judgedBy: ['mcp.metadata-discovery'],
  },
  {
    id: 'discovery/normative',
    revisions: R.newest,
    section: 'Authorization Server Discovery',
    keyword: 'MUST',
    binds: 'implementations',
    quote:
      'Implementations MUST follow the normative discovery requirements defined in Authorization Server Discovery.',
    judgedBy: ['mcp.metadata-discovery', 'prm.metadata'],
  },
  {
    id: 'discovery/issuer-identical',
    revisions: R.newest,
    section: 'Authorization Server Metadata Discovery',
    keyword: 'MUST',
    binds: 'authorization server',
    quote:
      'the `issuer` value in the document MUST be identical to the issuer identifier used to construct the ' +
      'well-known URL.',
    judgedBy: ['discovery.document'],
  },
  {
    id: 'cimd/support',
    revisions: R.nov,
    section: 'Client ID Metadata Documents',
    keyword: 'SHOULD',
    binds: 'authorization server',
    quote:
      'MCP clients and authorization servers SHOULD support OAuth Client ID Metadata Documents as specified in ' +
      'OAuth Client ID Metadata Document.',
    judgedBy: ['cimd.code-flow'],
    note: NA.advertised,
  },
  {
    id: 'cimd/support-for-registration',
    revisions: R.newest,
    section: 'Client ID Metadata Documents',
    keyword: 'SHOULD',
    binds: 'authorization server',
    quote:
      'MCP clients and authorization servers SHOULD support OAuth Client ID Metadata Documents as specified in ' +
      'OAuth Client ID Metadata Document for client registration.',
    judgedBy: ['cimd.code-flow'],
    note: NA.advertised,
  },
  {
    id: 'cimd/follow-draft',
    revisions: R.cimd,
    section: 'Implementation Requirements',
    keyword: 'MUST',
    binds: 'implementations',
    quote:
      'MCP implementations supporting Client ID Metadata Documents MUST follow the requirements specified in OAuth ' +
      'Client ID Metadata Document.',
    judgedBy: ['cimd.code-flow', 'cimd.client-id-matches-url', 'cimd.redirect-uri-listed', 'cimd.bad-document'],
  },
  {
    id: 'cimd/fetch',
    revisions: R.cimd,
    section: 'Implementation Requirements',
    keyword: 'SHOULD',
    binds: 'authorization server',
    lead: 'For Authorization Servers:',
    quote: 'SHOULD fetch metadata documents when encountering URL-formatted client_ids',
    judgedBy: ['cimd.code-flow'],
    note: NA.advertised,
  },
  {
    id: 'cimd/client-id-matches',
    revisions: R.cimd,
    section: 'Implementation Requirements',
    keyword: 'MUST',
    binds: 'authorization server',
    lead: 'For Authorization Servers:',
    quote: "MUST validate that the fetched document's `client_id` matches the URL exactly",
    judgedBy: ['cimd.client-id-matches-url'],
  },
  {
    id: 'cimd/cache',
    revisions: R.cimd,
    section: 'Implementation Requirements',
    keyword: 'SHOULD',
    binds: 'authorization server',
    lead: 'For Authorization Servers:',
    quote: 'SHOULD cache metadata respecting HTTP cache headers',
    notApplicable:
      'a cache shows only in how often the document is fetched, which HTTP caching leaves to the server within its ' +
      'rules; counting fetches would judge a timing',
  },
  {
    id: 'cimd/redirect-uris',
    revisions: R.cimd,
    section: 'Implementation Requirements',
    keyword: 'MUST',
    binds: 'authorization server',
    lead: 'For Authorization Servers:',
    quote: 'MUST validate redirect URIs presented in an authorization request against those in the metadata document',
    judgedBy: ['cimd.redirect-uri-listed'],
  },
  {
    id: 'cimd/valid-document',
    revisions: R.cimd,
    section: 'Implementation Requirements',
    keyword: 'MUST',
    binds: 'authorization server',
    lead: 'For Authorization Servers:',
    quote: 'MUST validate the document structure is valid JSON and contains required fields',
    judgedBy: ['cimd.bad-document'],
  },
  {
    id: 'cimd/security',
    revisions: R.nov,
    section: 'Implementation Requirements',
    keyword: 'SHOULD',
    binds: 'authorization server',
    lead: 'For Authorization Servers:',
    quote: 'SHOULD follow the security considerations in Section 6 of Client ID Metadata Document',
    notApplicable: NA.ssrf,
    note: '`cimd.bad-document` judges one of them: an oversized document is refused',
  },
  {
    id: 'cimd/security-both',
    revisions: R.newest,
    section: 'Implementation Requirements',
    keyword: 'SHOULD',
    binds: 'authorization server',
    lead: 'For Authorization Servers:',
    quote:
      'SHOULD follow the security considerations in Section 6 of Client ID Metadata Document and in Client ID ' +
      'Metadata Document Security',
    notApplicable: NA.ssrf,
    note: '`cimd.bad-document` judges one of them: an oversized document is refused',
  },
  {
    id: 'dcr/should',
    revisions: R.first,
    section: 'Dynamic Client Registration',
    keyword: 'SHOULD',
    binds: 'authorization server',
    quote:
      'MCP clients and authorization servers SHOULD support the OAuth 2.0 Dynamic Client Registration Protocol ' +
      'RFC7591 to allow MCP clients to obtain OAuth client IDs without user interaction.',
    notApplicable: NA.dcr,
  },
  {
    id: 'dcr/may',
    revisions: R.cimd,
    section: 'Dynamic Client Registration',
    keyword: 'MAY',
    binds: 'authorization server',
    quote:
      'MCP clients and authorization servers MAY support the OAuth 2.0 Dynamic Client Registration Protocol RFC7591 ' +
      'to allow MCP clients to obtain OAuth client IDs without user interaction.',
    notApplicable: NA.may,
  },
];
