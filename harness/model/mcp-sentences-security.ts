/**
 * The MCP authorization sentences of Security Considerations: token audience binding, token theft, communication
 * security, PKCE metadata, open redirection, CIMD security, the iss parameter (2026-07-28), confused deputies and
 * privilege restriction (harness/model/mcp-sentences.ts says what an entry is).
 */
import { NOT_APPLICABLE as NA, REVISIONS as R } from './mcp-sentence.ts';
import type { McpSentence } from './mcp-sentence.ts';

export const MCP_SECURITY_SENTENCES: readonly McpSentence[] = [
  {
    id: 'security/oauth-2-1',
    revisions: R.beforeNewest,
    section: 'Security Considerations',
    keyword: 'MUST',
    binds: 'implementations',
    quote:
      'Implementations MUST follow OAuth 2.1 security best practices as laid out in OAuth 2.1 Section 7. ' +
      '"Security Considerations".',
    notApplicable: NA.whole,
  },
  {
    id: 'security/page',
    revisions: R.newest,
    section: 'Security Considerations',
    keyword: 'MUST',
    binds: 'implementations',
    quote:
      'Implementations of this specification MUST follow the normative security requirements in Security ' +
      'Considerations, covering token audience binding and validation, token theft, communication security, ' +
      'authorization code protection, mix-up and confused deputy attacks, open redirection, and Client ID Metadata ' +
      'Document security.',
    notApplicable: NA.listed,
  },
  {
    id: 'security/consider',
    revisions: R.newest,
    section: 'Authorization Security Considerations',
    keyword: 'MUST',
    binds: 'implementations',
    quote:
      'This document outlines security requirements that implementers MUST consider when building MCP clients ' +
      'and servers.',
    notApplicable: NA.listed,
  },
  {
    id: 'security/oauth-2-1-additionally',
    revisions: R.newest,
    section: 'Authorization Security Considerations',
    keyword: 'MUST',
    binds: 'implementations',
    quote:
      'Additionally, implementors MUST follow OAuth 2.1 security best practices as outlined in OAuth 2.1 Section 7. ' +
      '"Security Considerations".',
    notApplicable: NA.whole,
  },
  {
    id: 'theft/storage',
    revisions: R.all,
    section: 'Token Theft',
    keyword: 'MUST',
    binds: 'implementations',
    quote:
      'Clients and servers MUST implement secure token storage and follow OAuth best practices, as outlined in ' +
      'OAuth 2.1, Section 7.1.',
    notApplicable: 'how a server stores tokens cannot be seen from outside it',
  },
  {
    id: 'theft/short-lived',
    revisions: R.all,
    section: 'Token Theft',
    keyword: 'SHOULD',
    binds: 'authorization server',
    quote: 'Authorization servers SHOULD issue short-lived access tokens to reduce the impact of leaked tokens.',
    notApplicable:
      "the text sets no lifetime: any bound would be the harness's guess, and a guess never makes a scenario fail",
  },
  {
    id: 'theft/rotate-refresh',
    revisions: R.all,
    section: 'Token Theft',
    keyword: 'MUST',
    binds: 'authorization server',
    quote:
      'For public clients, authorization servers MUST rotate refresh tokens as described in OAuth 2.1 Section 4.3.1 ' +
      '"Token Endpoint Extension".',
    judgedBy: ['refresh.rotation'],
  },
  {
    id: 'comms/oauth-1-5',
    revisions: R.all,
    section: 'Communication Security',
    keyword: 'MUST',
    binds: 'implementations',
    quote: 'Implementations MUST follow OAuth 2.1 Section 1.5 "Communication Security".',
    judgedBy: ['mcp.https-endpoints'],
  },
  {
    id: 'comms/https-endpoints',
    revisions: R.all,
    section: 'Communication Security',
    keyword: 'MUST',
    binds: 'authorization server',
    quote: 'All authorization server endpoints MUST be served over HTTPS.',
    judgedBy: ['mcp.https-endpoints'],
  },
  {
    id: 'comms/redirect-uris',
    revisions: R.all,
    section: 'Communication Security',
    keyword: 'MUST',
    binds: 'implementations',
    quote: 'All redirect URIs MUST be either `localhost` or use HTTPS.',
    judgedBy: ['mcp.https-endpoints'],
  },
  {
    id: 'pkce/oidc-metadata',
    revisions: R.cimd,
    section: 'Authorization Code Protection',
    keyword: 'MUST',
    binds: 'authorization server',
    quote:
      'Authorization servers providing OpenID Connect Discovery 1.0 MUST include `code_challenge_methods_supported` ' +
      'in their metadata to ensure MCP compatibility.',
    judgedBy: ['mcp.metadata-discovery'],
  },
  {
    id: 'redirect/exact',
    revisions: R.all,
    section: 'Open Redirection',
    keyword: 'MUST',
    binds: 'authorization server',
    quote:
      'Authorization servers MUST validate exact redirect URIs against pre-registered values to prevent redirection ' +
      'attacks.',
    judgedBy: ['redirect.exact-match'],
  },
  {
    id: 'redirect/untrusted',
    revisions: R.all,
    section: 'Open Redirection',
    keyword: 'MUST',
    binds: 'authorization server',
    quote:
      "Authorization servers MUST take precautions to prevent redirecting user agents to untrusted URI's, following " +
      'suggestions laid out in OAuth 2.1 Section 7.12.2',
    judgedBy: ['redirect.no-open-redirect'],
  },
  {
    id: 'redirect/trusted-only',
    revisions: R.all,
    section: 'Open Redirection',
    keyword: 'SHOULD',
    binds: 'authorization server',
    quote: 'Authorization servers SHOULD only automatically redirect the user agent if it trusts the redirection URI.',
    notApplicable:
      'whether a server trusts a registered redirection URI is its own policy; an unregistered one is judged by ' +
      '`redirect.no-open-redirect` under the MUST above',
  },
  {
    id: 'redirect/inform-user',
    revisions: R.all,
    section: 'Open Redirection',
    keyword: 'MAY',
    binds: 'authorization server',
    quote:
      'If the URI is not trusted, the authorization server MAY inform the user and rely on the user to make the ' +
      'correct decision.',
    notApplicable: NA.may,
  },
  {
    id: 'cimd-security/consider',
    revisions: R.cimd,
    section: 'Client ID Metadata Document Security',
    keyword: 'MUST',
    binds: 'authorization server',
    quote:
      'When implementing Client ID Metadata Documents, authorization servers MUST consider the security ' +
      'implications detailed in OAuth Client ID Metadata Document, Section 6.',
    notApplicable: 'what a server considered cannot be seen; the sentences below it are listed one by one',
  },
  {
    id: 'cimd-security/ssrf',
    revisions: R.cimd,
    section: 'Authorization Server Abuse Protection',
    keyword: 'SHOULD',
    binds: 'authorization server',
    quote:
      'Authorization servers fetching metadata documents SHOULD consider Server-Side Request Forgery (SSRF) risks, ' +
      'as described in OAuth Client ID Metadata Document: Server Side Request Forgery (SSRF) Attacks.',
    notApplicable: NA.ssrf,
  },
  {
    id: 'cimd-security/localhost-warning',
    revisions: R.cimd,
    section: 'Localhost Redirect URI Risks',
    keyword: 'SHOULD',
    binds: 'authorization server',
    lead: 'Authorization servers:',
    quote: 'SHOULD display additional warnings for `localhost`-only redirect URIs',
    notApplicable: NA.page,
  },
  {
    id: 'cimd-security/attestation',
    revisions: R.cimd,
    section: 'Localhost Redirect URI Risks',
    keyword: 'MAY',
    binds: 'authorization server',
    lead: 'Authorization servers:',
    quote: 'MAY require additional attestation mechanisms for enhanced security',
    notApplicable: NA.may,
  },
  {
    id: 'cimd-security/show-hostname',
    revisions: R.cimd,
    section: 'Localhost Redirect URI Risks',
    keyword: 'MUST',
    binds: 'authorization server',
    lead: 'Authorization servers:',
    quote: 'MUST clearly display the redirect URI hostname during authorization',
    notApplicable: NA.page,
  },
  {
    id: 'cimd-security/trust-policies',
    revisions: R.nov,
    section: 'Trust Policies',
    keyword: 'MAY',
    binds: 'authorization server',
    quote: 'Authorization servers MAY implement domain-based trust policies:',
    notApplicable: NA.may,
  },
  {
    id: 'cimd-security/trust-policies-draft',
    revisions: R.newest,
    section: 'Trust Policies',
    keyword: 'MAY',
    binds: 'authorization server',
    quote:
      'Authorization servers MAY implement domain-based trust policies for accepting Client ID Metadata Documents, ' +
      'as described in Section 6.4 and Section 6.8 of the Client ID Metadata Document specification.',
    notApplicable: NA.may,
  },
  {
    id: 'iss/include',
    revisions: R.newest,
    section: 'Authorization Response Validation',
    keyword: 'SHOULD',
    binds: 'authorization server',
    quote:
      'MCP authorization servers SHOULD include the `iss` parameter in authorization responses, including error ' +
      'responses, as defined in RFC9207 Section 2.',
    judgedBy: ['mixup.iss-parameter'],
    note: 'judged where the metadata advertises authorization_response_iss_parameter_supported',
  },
  {
    id: 'iss/advertise',
    revisions: R.newest,
    section: 'Authorization Response Validation',
    keyword: 'MUST',
    binds: 'authorization server',
    quote:
      'Authorization servers that include the `iss` parameter MUST advertise this by setting ' +
      '`authorization_response_iss_parameter_supported` to `true` in their metadata (RFC9207 Section 2.3).',
    notApplicable:
      '`mixup.iss-parameter` takes the advertisement as its premise (it judges iss where the metadata advertises ' +
      'it); an iss sent without the advertisement is not looked for',
  },
  {
    id: 'confused-deputy/consent',
    revisions: R.all,
    section: 'Confused Deputy Problem',
    keyword: 'MUST',
    binds: 'MCP server',
    quote:
      'MCP proxy servers using static client IDs MUST obtain user consent for each dynamically registered client ' +
      'before forwarding to third-party authorization servers (which may require additional consent).',
    notApplicable:
      'binds an MCP server acting as a client of an upstream authorization server, which the harness does not see',
  },
  {
    id: 'audience/client-resource',
    revisions: R.all,
    section: 'Token Audience Binding and Validation',
    keyword: 'MUST',
    binds: 'client',
    quote:
      'MCP clients MUST include the `resource` parameter in authorization and token requests as specified in the ' +
      'Resource Parameter Implementation section',
    notApplicable: NA.resource,
  },
  {
    id: 'audience/validate',
    revisions: R.all,
    section: 'Token Audience Binding and Validation',
    keyword: 'MUST',
    binds: 'MCP server',
    quote: 'MCP servers MUST validate that tokens presented to them were specifically issued for their use',
    judgedBy: ['prm.audience-enforced'],
  },
  {
    id: 'privilege/validate-first',
    revisions: R.all,
    section: 'Access Token Privilege Restriction',
    keyword: 'MUST',
    binds: 'MCP server',
    quote:
      'MCP servers MUST validate access tokens before processing the request, ensuring the access token is issued ' +
      'specifically for the MCP server, and take all necessary steps to ensure no data is returned to unauthorized ' +
      'parties.',
    judgedBy: ['prm.audience-enforced'],
  },
  {
    id: 'privilege/oauth-5-2',
    revisions: R.all,
    section: 'Access Token Privilege Restriction',
    keyword: 'MUST',
    binds: 'MCP server',
    quote: 'A MCP server MUST follow the guidelines in OAuth 2.1 - Section 5.2 to validate inbound tokens.',
    judgedBy: ['prm.audience-enforced'],
  },
  {
    id: 'privilege/intended-only',
    revisions: R.all,
    section: 'Access Token Privilege Restriction',
    keyword: 'MUST',
    binds: 'MCP server',
    quote:
      'MCP servers MUST only accept tokens specifically intended for themselves and MUST reject tokens that do not ' +
      'include them in the audience claim or otherwise verify that they are the intended recipient of the token.',
    judgedBy: ['prm.audience-enforced'],
  },
  {
    id: 'privilege/no-passthrough',
    revisions: R.all,
    section: 'Access Token Privilege Restriction',
    keyword: 'MUST NOT',
    binds: 'MCP server',
    quote: 'The MCP server MUST NOT pass through the token it received from the MCP client.',
    notApplicable: NA.upstream,
  },
  {
    id: 'privilege/client-resource',
    revisions: R.all,
    section: 'Access Token Privilege Restriction',
    keyword: 'MUST',
    binds: 'client',
    quote:
      'MCP clients MUST implement and use the `resource` parameter as defined in RFC 8707 - Resource Indicators for ' +
      'OAuth 2.0 to explicitly specify the target resource for which the token is being requested.',
    notApplicable: NA.resource,
  },
];
