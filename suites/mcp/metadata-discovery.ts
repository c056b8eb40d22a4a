import { CheckFailure, defineScenario } from '../../harness/scenario/scenario.ts';
import { authorizationServerMetadataUrls } from '../../harness/target/mcp-discovery.ts';
import { isRecord } from '../../protocol/guards.ts';

/**
 * What an MCP client meets when it looks for the authorization server's metadata: the URLs of the revision's
 * "Authorization Server Metadata Discovery" in their order (RFC 8414 path insertion, then the OpenID Connect forms;
 * harness/target/mcp-discovery.ts), the first that answers 200 with a JSON object being the one it uses. That
 * document must be served as application/json (RFC 8414 §3.2, OIDC Discovery §4.2: a client that checks the media
 * type, as the MCP SDK's does, stops there) and, for an MCP client to proceed, advertise the authorization code flow
 * with PKCE S256 (OAuth 2.1, which every revision's Overview requires; "Authorization Code Protection": a client MUST
 * refuse to proceed without code_challenge_methods_supported). Revision 2025-06-18 requires RFC 8414 metadata itself,
 * so there the RFC 8414 URL must be the one that answers.
 */
const isJsonType = (contentType: string | undefined) =>
  (contentType ?? '').split(';')[0]!.trim().toLowerCase() === 'application/json';

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];

export default defineScenario({
  id: 'mcp.metadata-discovery',
  title:
    "The authorization server's metadata is found at the URLs MCP clients probe, in their order, served as " +
    'application/json, advertising the code flow and S256',
  requirements: {
    mcp20250618Overview: {
      spec: 'MCP 2025-06-18',
      section: 'Overview',
      level: 'MUST',
      party: 'server',
      note: 'Authorization servers MUST provide OAuth 2.0 Authorization Server Metadata (RFC8414)',
    },
    mcp20251125Overview: {
      spec: 'MCP 2025-11-25',
      section: 'Overview',
      level: 'MUST',
      party: 'server',
      note: 'at least one of RFC 8414 metadata and OpenID Connect Discovery; OAuth 2.1',
    },
    mcp20260728Overview: {
      spec: 'MCP 2026-07-28',
      section: 'Overview',
      level: 'MUST',
      party: 'server',
      note: 'at least one of RFC 8414 metadata and OpenID Connect Discovery; OAuth 2.1',
    },
    mcp20251125Pkce: {
      spec: 'MCP 2025-11-25',
      section: 'Authorization Code Protection',
      level: 'MUST',
      party: 'server',
      note: 'OIDC Discovery metadata includes code_challenge_methods_supported',
    },
    mcp20260728Pkce: {
      spec: 'MCP 2026-07-28',
      section: 'Authorization Code Protection',
      level: 'MUST',
      party: 'server',
      note: 'OIDC Discovery metadata includes code_challenge_methods_supported',
    },
    rfc8414_3_2: {
      spec: 'RFC 8414',
      section: '3.2',
      level: 'MUST',
      party: 'server',
      note: 'a JSON object using the application/json content type',
    },
    oidcDiscovery4_2: {
      spec: 'OIDC Discovery',
      section: '4.2',
      level: 'MUST',
      party: 'server',
      note: 'a JSON object using the application/json content type',
    },
  },
  severity: 'medium',
  appliesTo: 'oauth2',
  catches: ['as-metadata-text-plain'],
  async run(ctx) {
    if (!ctx.resource)
      return ctx.skip(
        'the target does not advertise a protected resource to start from: the run did not start from an MCP ' +
          'server URL (--profile mcp) and the config names no "resource"',
      );
    const issuer = ctx.target.issuer;
    const probes = authorizationServerMetadataUrls(issuer);
    const overview =
      ctx.profile === 'mcp-2025-06-18'
        ? ctx.req.mcp20250618Overview
        : ctx.profile === 'mcp-2025-11-25'
          ? ctx.req.mcp20251125Overview
          : ctx.req.mcp20260728Overview;
    const tried: string[] = [];
    let found: { url: string; contentType: string | undefined; doc: Record<string, unknown> } | undefined;
    for (const url of probes) {
      const res = await ctx.http.get(url, { label: `authorization server metadata, MCP probe ${tried.length + 1}` });
      tried.push(`${url} (${res.status})`);
      if (res.status !== 200) continue;
      let doc: unknown = res.json;
      if (doc === undefined) {
        try {
          doc = JSON.parse(res.text);
        } catch {
          doc = undefined;
        }
      }
      if (!isRecord(doc)) continue;
      found = { url, contentType: res.header('content-type'), doc };
      break;
    }
    if (!found)
      throw new CheckFailure(
        `No metadata for the issuer ${issuer} at any URL an MCP client probes: ${tried.join(', ')}; an MCP client ` +
          'cannot find the authorization server',
        { requirement: overview },
      );
    ctx.evidence.note(`MCP clients probe ${probes.join(', ')} in this order; the first to answer was ${found.url}.`);
    if (ctx.profile === 'mcp-2025-06-18' && found.url !== probes[0])
      throw new CheckFailure(
        `The RFC 8414 metadata URL ${probes[0]} answered no metadata (${tried[0]}); the first document found was ` +
          `${found.url}`,
        { requirement: ctx.req.mcp20250618Overview },
      );
    const oidc = found.url.includes('/.well-known/openid-configuration');
    await ctx.softly(() => {
      if (!isJsonType(found.contentType))
        throw new CheckFailure(
          `The metadata at ${found.url} was served as ${JSON.stringify(found.contentType ?? 'no Content-Type')}, not ` +
            'application/json',
          { requirement: oidc ? ctx.req.oidcDiscovery4_2 : ctx.req.rfc8414_3_2, kind: 'refused-wrongly' },
        );
    });
    // What an MCP client needs to proceed: judged where an MCP revision counts (discovery.* judge it otherwise).
    if (!ctx.applies(overview)) return;
    const responseTypes = strings(found.doc.response_types_supported);
    const methods = strings(found.doc.code_challenge_methods_supported);
    await ctx.softly(() => {
      if (!responseTypes.includes('code'))
        throw new CheckFailure(
          `The metadata at ${found.url} lists response_types_supported ${JSON.stringify(responseTypes)}, without ` +
            '"code": OAuth 2.1\'s authorization code flow is not advertised',
          { requirement: overview, kind: 'refused-wrongly' },
        );
    });
    if (!methods.includes('S256'))
      throw new CheckFailure(
        `The metadata at ${found.url} lists code_challenge_methods_supported ${JSON.stringify(methods)}, without ` +
          '"S256": an MCP client MUST refuse to proceed',
        {
          requirement: oidc
            ? ctx.profile === 'mcp-2025-11-25'
              ? ctx.req.mcp20251125Pkce
              : ctx.req.mcp20260728Pkce
            : overview,
          kind: 'refused-wrongly',
        },
      );
  },
});
