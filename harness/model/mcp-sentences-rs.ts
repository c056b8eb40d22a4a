/**
 * The MCP authorization sentences that bind the MCP server as a protected resource outside Security Considerations:
 * protected resource metadata and the challenge, token requirements and handling, error handling, scopes, the
 * canonical URI, refresh tokens; and the client's resource sentence the audience scenarios cite for context
 * (harness/model/mcp-sentences.ts says what an entry is).
 */
import { NOT_APPLICABLE as NA, REVISIONS as R } from './mcp-sentence.ts';
import type { McpSentence } from './mcp-sentence.ts';

export const MCP_RS_SENTENCES: readonly McpSentence[] = [
  {
    id: 'overview/prm',
    revisions: R.all,
    section: 'Overview',
    keyword: 'MUST',
    binds: 'MCP server',
    quote: 'MCP servers MUST implement OAuth 2.0 Protected Resource Metadata (RFC9728).',
    judgedBy: ['prm.metadata'],
  },
  {
    id: 'prm/implement',
    revisions: R.all,
    section: 'Authorization Server Location',
    keyword: 'MUST',
    binds: 'MCP server',
    quote:
      'MCP servers MUST implement the OAuth 2.0 Protected Resource Metadata (RFC9728) specification to indicate the ' +
      'locations of authorization servers.',
    judgedBy: ['prm.metadata'],
  },
  {
    id: 'prm/authorization-servers',
    revisions: R.all,
    section: 'Authorization Server Location',
    keyword: 'MUST',
    binds: 'MCP server',
    quote:
      'The Protected Resource Metadata document returned by the MCP server MUST include the `authorization_servers` ' +
      'field containing at least one authorization server.',
    judgedBy: ['prm.metadata'],
  },
  {
    id: 'prm/challenge-header',
    revisions: R.first,
    section: 'Authorization Server Location',
    keyword: 'MUST',
    binds: 'MCP server',
    quote:
      'MCP servers MUST use the HTTP header `WWW-Authenticate` when returning a _401 Unauthorized_ to indicate the ' +
      'location of the resource server metadata URL as described in RFC9728 Section 5.1 "WWW-Authenticate Response".',
    judgedBy: ['prm.challenge'],
  },
  {
    id: 'prm/discovery-mechanism',
    revisions: R.cimd,
    section: 'Protected Resource Metadata Discovery Requirements',
    keyword: 'MUST',
    binds: 'MCP server',
    quote:
      'MCP servers MUST implement one of the following discovery mechanisms to provide authorization server ' +
      'location information to MCP clients:',
    judgedBy: ['prm.metadata', 'prm.challenge'],
  },
  {
    id: 'scope/challenge',
    revisions: R.nov,
    section: 'Protected Resource Metadata Discovery Requirements',
    keyword: 'SHOULD',
    binds: 'MCP server',
    quote:
      'MCP servers SHOULD include a `scope` parameter in the `WWW-Authenticate` header as defined in RFC 6750 ' +
      'Section 3 to indicate the scopes required for accessing the resource.',
    notApplicable: NA.scopes,
  },
  {
    id: 'scope/challenge-newest',
    revisions: R.newest,
    section: 'Scope Selection Strategy',
    keyword: 'SHOULD',
    binds: 'MCP server',
    quote:
      'MCP servers SHOULD include a `scope` parameter in the `WWW-Authenticate` header as defined in RFC 6750 ' +
      'Section 3 to indicate the scopes required for accessing the resource.',
    notApplicable: NA.scopes,
  },
  {
    id: 'scope/may-match',
    revisions: R.nov,
    section: 'Protected Resource Metadata Discovery Requirements',
    keyword: 'MAY',
    binds: 'MCP server',
    quote:
      'The scopes included in the `WWW-Authenticate` challenge MAY match `scopes_supported`, be a subset or superset ' +
      'of it, or an alternative collection that is neither a strict subset nor superset.',
    notApplicable: NA.may,
  },
  {
    id: 'scope/may-match-newest',
    revisions: R.newest,
    section: 'Scope Selection Strategy',
    keyword: 'MAY',
    binds: 'MCP server',
    quote:
      'The scopes included in the `WWW-Authenticate` challenge MAY match `scopes_supported`, be a subset or superset ' +
      'of it, or an alternative collection that is neither a strict subset nor superset.',
    notApplicable: NA.may,
  },
  {
    id: 'scope/consistency',
    revisions: R.nov,
    section: 'Protected Resource Metadata Discovery Requirements',
    keyword: 'SHOULD',
    binds: 'MCP server',
    quote:
      'Servers SHOULD strive for consistency in how they construct scope sets but they are not required to surface ' +
      'every dynamically issued scope through `scopes_supported`.',
    notApplicable: NA.scopes,
  },
  {
    id: 'scope/consistency-newest',
    revisions: R.newest,
    section: 'Scope Selection Strategy',
    keyword: 'SHOULD',
    binds: 'MCP server',
    quote:
      'Servers SHOULD strive for consistency in how they construct scope sets but they are not required to surface ' +
      'every dynamically issued scope through `scopes_supported`.',
    notApplicable: NA.scopes,
  },
  {
    id: 'resource/client-indicators',
    revisions: R.all,
    section: 'Resource Parameter Implementation',
    keyword: 'MUST',
    binds: 'client',
    quote:
      'MCP clients MUST implement Resource Indicators for OAuth 2.0 as defined in RFC 8707 to explicitly specify the ' +
      'target resource for which the token is being requested.',
    notApplicable: NA.resource,
  },
  {
    id: 'canonical/uppercase',
    revisions: R.all,
    section: 'Canonical Server URI',
    keyword: 'SHOULD',
    binds: 'implementations',
    quote:
      'While the canonical form uses lowercase scheme and host components, implementations SHOULD accept uppercase ' +
      'scheme and host components for robustness and interoperability.',
    notApplicable: 'not judged: no scenario sends a resource indicator with an uppercase scheme or host',
  },
  {
    id: 'canonical/trailing-slash',
    revisions: R.all,
    section: 'Canonical Server URI',
    keyword: 'SHOULD',
    binds: 'implementations',
    quote:
      'implementations SHOULD consistently use the form without the trailing slash for better interoperability ' +
      'unless the trailing slash is semantically significant for the specific resource.',
    notApplicable:
      'a choice of form the server may justify; `prm.metadata` judges that the metadata names the resource by the ' +
      'URL it is reached at',
  },
  {
    id: 'token/not-in-query',
    revisions: R.all,
    section: 'Token Requirements',
    keyword: 'MUST NOT',
    binds: 'implementations',
    quote: 'Access tokens MUST NOT be included in the URI query string',
    judgedBy: ['prm.query-token-refused'],
  },
  {
    id: 'handling/validate',
    revisions: R.all,
    section: 'Token Handling',
    keyword: 'MUST',
    binds: 'MCP server',
    quote:
      'MCP servers, acting in their role as an OAuth 2.1 resource server, MUST validate access tokens as described ' +
      'in OAuth 2.1 Section 5.2.',
    judgedBy: ['prm.audience-enforced'],
  },
  {
    id: 'handling/audience',
    revisions: R.all,
    section: 'Token Handling',
    keyword: 'MUST',
    binds: 'MCP server',
    quote:
      'MCP servers MUST validate that access tokens were issued specifically for them as the intended audience, ' +
      'according to RFC 8707 Section 2.',
    judgedBy: ['prm.audience-enforced'],
  },
  {
    id: 'handling/error',
    revisions: R.all,
    section: 'Token Handling',
    keyword: 'MUST',
    binds: 'MCP server',
    quote: 'If validation fails, servers MUST respond according to OAuth 2.1 Section 5.3 error handling requirements.',
    judgedBy: ['prm.audience-enforced'],
  },
  {
    id: 'handling/401',
    revisions: R.all,
    section: 'Token Handling',
    keyword: 'MUST',
    binds: 'MCP server',
    quote: 'Invalid or expired tokens MUST receive a HTTP 401 response.',
    judgedBy: ['prm.audience-enforced'],
  },
  {
    id: 'handling/own-resources-as',
    revisions: R.first,
    section: 'Token Handling',
    keyword: 'MUST',
    binds: 'authorization server',
    quote: 'Authorization servers MUST only accept tokens that are valid for use with their own resources.',
    judgedBy: ['prm.audience-enforced'],
    note: 'the revisions after it bind "MCP servers" by the same sentence; judged where tokens are accepted',
  },
  {
    id: 'handling/own-resources',
    revisions: R.cimd,
    section: 'Token Handling',
    keyword: 'MUST',
    binds: 'MCP server',
    quote: 'MCP servers MUST only accept tokens that are valid for use with their own resources.',
    judgedBy: ['prm.audience-enforced'],
  },
  {
    id: 'handling/no-other-tokens',
    revisions: R.all,
    section: 'Token Handling',
    keyword: 'MUST NOT',
    binds: 'MCP server',
    quote: 'MCP servers MUST NOT accept or transit any other tokens.',
    judgedBy: ['prm.audience-enforced'],
  },
  {
    id: 'refresh/no-offline-access',
    revisions: R.newest,
    section: 'Refresh Tokens',
    keyword: 'SHOULD NOT',
    binds: 'MCP server',
    quote:
      'MCP Servers (Protected Resources) SHOULD NOT include `offline_access` in `WWW-Authenticate` scope or ' +
      'Protected Resource Metadata `scopes_supported`, as refresh tokens are not a resource requirement.',
    notApplicable: 'not judged yet: no scenario reads the scopes of the challenge or of the metadata',
  },
  {
    id: 'errors/status-codes',
    revisions: R.all,
    section: 'Error Handling',
    keyword: 'MUST',
    binds: 'MCP server',
    quote: 'Servers MUST return appropriate HTTP status codes for authorization errors:',
    judgedBy: ['prm.challenge', 'prm.audience-enforced'],
  },
  {
    id: 'scope-errors/respond',
    revisions: R.cimd,
    section: 'Runtime Insufficient Scope Errors',
    keyword: 'SHOULD',
    binds: 'MCP server',
    quote:
      'When a client makes a request with an access token with insufficient scope during runtime operations, the ' +
      'server SHOULD respond with:',
    notApplicable: NA.scopes,
  },
  {
    id: 'scope-errors/include',
    revisions: R.nov,
    section: 'Runtime Insufficient Scope Errors',
    keyword: 'SHOULD',
    binds: 'MCP server',
    quote:
      'Server Scope Management: When responding with insufficient scope errors, servers SHOULD include the scopes ' +
      'needed to satisfy the current request in the `scope` parameter.',
    notApplicable: NA.scopes,
  },
  {
    id: 'scope-errors/include-operation',
    revisions: R.newest,
    section: 'Runtime Insufficient Scope Errors',
    keyword: 'SHOULD',
    binds: 'MCP server',
    quote:
      'Server Scope Management: When responding with insufficient scope errors, servers SHOULD include the scopes ' +
      'needed to satisfy the current operation in the `scope` parameter, consistent with RFC 6750 Section 3.1.',
    notApplicable: NA.scopes,
  },
  {
    id: 'scope-errors/single-challenge',
    revisions: R.newest,
    section: 'Runtime Insufficient Scope Errors',
    keyword: 'SHOULD',
    binds: 'MCP server',
    quote:
      'Whatever scope-inclusion strategy a server adopts, servers SHOULD include all scopes required for the current ' +
      'operation in a single challenge.',
    notApplicable: NA.scopes,
  },
  {
    id: 'scope-errors/consistent',
    revisions: R.cimd,
    section: 'Runtime Insufficient Scope Errors',
    keyword: 'SHOULD',
    binds: 'MCP server',
    quote:
      'Servers SHOULD be consistent in their scope inclusion strategy to provide predictable behavior for clients.',
    notApplicable: NA.scopes,
  },
  {
    id: 'scope-errors/user-experience',
    revisions: R.cimd,
    section: 'Runtime Insufficient Scope Errors',
    keyword: 'SHOULD',
    binds: 'MCP server',
    quote:
      'Servers SHOULD consider the user experience impact when determining which scopes to include in the response, ' +
      'as misconfigured scopes may require frequent user interaction.',
    notApplicable: NA.scopes,
  },
  {
    id: 'step-up/hierarchies',
    revisions: R.newest,
    section: 'Step-Up Authorization Flow',
    keyword: 'MUST',
    binds: 'MCP server',
    quote:
      'Servers MUST account for scope hierarchies, where a broader scope implies narrower ones, when deciding ' +
      'whether a token is sufficient for an operation.',
    notApplicable: NA.scopes,
  },
];
