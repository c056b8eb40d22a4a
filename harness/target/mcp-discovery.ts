/**
 * Starting from an MCP server's URL (docs/target-config.md, "Starting from an MCP server's URL"): what an MCP client
 * does before it can authorize. An unauthenticated request to the resource (the default resource request: a JSON-RPC
 * initialize POST) → 401 with a Bearer challenge → its `resource_metadata` (RFC 9728 §5.1), or the well-known URLs
 * when the challenge lacks it (from revision 2025-11-25 on a server may rely on them; under 2025-06-18 prm.challenge
 * judges the missing parameter, and discovery goes on) → the protected resource metadata (RFC 9728 §3) →
 * `authorization_servers[0]` → the authorization server's metadata in MCP's probe order (the revision's "Authorization
 * Server Metadata Discovery"). Everything the server sends is untrusted data: bounded by the HTTP client's limits,
 * no redirect followed, and no request outside the resource's origin and then the authorization server's.
 * A step that fails throws McpDiscoveryError naming it (the command line's exit code 2); nothing answering at all is
 * a TargetUnreachableError (exit code 3).
 */
import { HttpClient, type HttpResponse } from '../http/client.ts';
import { OriginPolicy } from '../http/origin.ts';
import { Recorder } from '../http/recorder.ts';
import type { Redactor } from '../redact/redact.ts';
import { HarnessError } from '../model/failures.ts';
import type { ProfileName } from '../model/results.ts';
import { bearerParam } from '../../protocol/www-authenticate.ts';
import { isRecord } from '../../protocol/guards.ts';

/** The MCP protocol version the default resource request announces. */
export const MCP_PROTOCOL_VERSION = '2025-11-25';

/** The default request to a protected resource (the target config's `resource.request` when it names none). */
export function defaultResourceRequest(): { method: 'POST'; headers: Record<string, string>; body: string } {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: MCP_PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: 'idp-conformance', version: '1' },
      },
    }),
  };
}

/** A step of the discovery failed: the message names it. */
export class McpDiscoveryError extends HarnessError {
  override readonly name = 'McpDiscoveryError';
  readonly step: McpDiscoveryStep;
  constructor(step: McpDiscoveryStep, message: string) {
    super(`MCP discovery, ${step}: ${message}`);
    this.step = step;
  }
}

export type McpDiscoveryStep =
  | 'the unauthenticated request'
  | 'the challenge'
  | 'the protected resource metadata'
  | 'the authorization server metadata';

/** What the discovery found, and where it looked: the report's and the console's record. */
export interface McpDiscovery {
  resourceUrl: string;
  /** The WWW-Authenticate header of the 401 (at most 500 characters). */
  challenge: string | undefined;
  /** Where the protected resource metadata came from. */
  metadataFrom: 'www-authenticate' | 'well-known';
  metadataUrl: string;
  /** The protected resource metadata URLs tried, in order. */
  metadataTried: string[];
  issuer: string;
  /** The authorization server metadata URLs tried, in MCP's order, with the status each answered. */
  asTried: { url: string; status: number | 'not tried' }[];
  asMetadataUrl: string;
}

/**
 * The well-known protected resource metadata URLs of a resource (RFC 9728 §3.1; MCP 2025-11-25 "Protected Resource
 * Metadata Discovery Requirements"): at the resource's path, then at the root.
 */
export function protectedResourceMetadataUrls(resource: string): string[] {
  const u = new URL(resource);
  const path = u.pathname.replace(/\/+$/, '');
  const root = `${u.origin}/.well-known/oauth-protected-resource`;
  return path ? [`${root}${path}`, root] : [root];
}

/**
 * The authorization server metadata URLs in MCP's order ("Authorization Server Metadata Discovery", 2025-11-25 and
 * 2026-07-28): for an issuer with a path, RFC 8414 path insertion, OIDC Discovery path insertion, OIDC Discovery path
 * appending; without a path, oauth-authorization-server then openid-configuration. Revision 2025-06-18 ("Server
 * Metadata Discovery") names RFC 8414 alone: its URL first, then the same OIDC forms as a fallback of the harness's.
 */
export function authorizationServerMetadataUrls(issuer: string): string[] {
  const u = new URL(issuer);
  const path = u.pathname.replace(/\/+$/, '');
  if (!path)
    return [`${u.origin}/.well-known/oauth-authorization-server`, `${u.origin}/.well-known/openid-configuration`];
  return [
    `${u.origin}/.well-known/oauth-authorization-server${path}`,
    `${u.origin}/.well-known/openid-configuration${path}`,
    `${u.origin}${path}/.well-known/openid-configuration`,
  ];
}

export interface McpDiscoveryOptions {
  redactor: Redactor;
  /**
   * The run's profile. Discovery goes on at the well-known URLs when the challenge lacks resource_metadata under every
   * revision (2025-06-18 has no such fallback, but the deviation is prm.challenge's to judge, not a reason to stop).
   */
  profile?: ProfileName;
  requestTimeoutMs?: number;
  fetch?: typeof fetch;
}

const short = (text: string, n = 200) => (text.length > n ? `${text.slice(0, n)}…` : text);

/** Discovers the authorization server of the MCP server at `resourceUrl` (see the file's comment). */
export async function discoverFromMcpUrl(resourceUrl: string, options: McpDiscoveryOptions): Promise<McpDiscovery> {
  const resource = new URL(resourceUrl);
  const recorder = new Recorder(options.redactor);
  const client = (origin: string) =>
    new HttpClient({
      recorder,
      requestTimeoutMs: options.requestTimeoutMs ?? 10_000,
      origins: new OriginPolicy({ issuer: origin }),
      fetch: options.fetch,
    });
  const rs = client(resource.origin);
  const { method, headers, body } = defaultResourceRequest();
  const first = await rs.send({ url: resource.href, method, headers, body, label: 'MCP request without a token' });
  if (first.status !== 401)
    throw new McpDiscoveryError(
      'the unauthenticated request',
      `${method} ${resource.href} without a token answered ${first.status}, not 401: is it an MCP server's endpoint ` +
        'that requires authorization? (for an authorization server, give its issuer URL without --profile mcp)',
    );
  const challenge = first.header('www-authenticate');
  const named = bearerParam(challenge, 'resource_metadata');
  const tried: string[] = [];
  let metadataFrom: McpDiscovery['metadataFrom'] = 'www-authenticate';
  let candidates: string[];
  if (named !== undefined) {
    if (!URL.canParse(named))
      throw new McpDiscoveryError('the challenge', `resource_metadata is not a URL: ${JSON.stringify(short(named))}`);
    const u = new URL(named);
    if (u.origin !== resource.origin)
      throw new McpDiscoveryError(
        'the challenge',
        `resource_metadata ${short(u.href)} is not on the resource's origin ${resource.origin}; the harness ` +
          'does not follow it (set resource.metadataUrl in a target config to go there)',
      );
    candidates = [u.href];
  } else {
    metadataFrom = 'well-known';
    candidates = protectedResourceMetadataUrls(resource.href);
  }
  let prm: Record<string, unknown> | undefined;
  let metadataUrl = '';
  const problems: string[] = [];
  for (const url of candidates) {
    tried.push(url);
    const res = await rs.get(url, { label: 'protected resource metadata (RFC 9728 §3)' });
    const problem = jsonObjectProblem(res);
    if (!problem) {
      prm = res.body;
      metadataUrl = url;
      break;
    }
    problems.push(problem);
  }
  if (!prm)
    throw new McpDiscoveryError(
      'the protected resource metadata',
      problems.join('; ') + (named === undefined ? ' (the 401 named no resource_metadata: the well-known URLs)' : ''),
    );
  const servers = prm.authorization_servers;
  const issuer = Array.isArray(servers) ? servers[0] : undefined;
  if (typeof issuer !== 'string' || !URL.canParse(issuer) || !/^https?:$/.test(new URL(issuer).protocol))
    throw new McpDiscoveryError(
      'the protected resource metadata',
      `${metadataUrl} has no authorization_servers with an http(s) URL first ` +
        `(authorization_servers: ${short(JSON.stringify(servers) ?? 'absent')})`,
    );
  const as = client(new URL(issuer).origin);
  const asTried: McpDiscovery['asTried'] = authorizationServerMetadataUrls(issuer).map((url) => ({
    url,
    status: 'not tried',
  }));
  let asMetadataUrl: string | undefined;
  for (const entry of asTried) {
    const res = await as.get(entry.url, { label: 'authorization server metadata (MCP probe order)' });
    entry.status = res.status;
    if (!jsonObjectProblem(res, true)) {
      asMetadataUrl = entry.url;
      break;
    }
  }
  if (!asMetadataUrl)
    throw new McpDiscoveryError(
      'the authorization server metadata',
      `no metadata for the issuer ${issuer} at any URL MCP clients probe: ` +
        asTried.map((t) => `${t.url} (${t.status})`).join(', '),
    );
  return {
    resourceUrl: resource.href,
    challenge: challenge === undefined ? undefined : short(challenge, 500),
    metadataFrom,
    metadataUrl,
    metadataTried: tried,
    issuer,
    asTried,
    asMetadataUrl,
  };
}

/** Why a response is not a JSON object document (undefined when it is). `lax`: any content type. */
function jsonObjectProblem(res: HttpResponse, lax = false): string | undefined {
  if (res.status !== 200) return `GET ${res.url} answered ${res.status}, not 200`;
  let parsed: unknown = res.json;
  if (parsed === undefined && lax) {
    try {
      parsed = JSON.parse(res.text);
    } catch {
      parsed = undefined;
    }
  }
  if (!isRecord(parsed)) return `GET ${res.url} did not return a JSON object`;
  return undefined;
}

/** One console line about what was found. */
export function mcpDiscoveryLine(d: McpDiscovery): string {
  const asAt = d.asTried.findIndex((t) => t.url === d.asMetadataUrl) + 1;
  return `MCP: ${d.resourceUrl} → 401 → protected resource metadata at ${d.metadataUrl} (${
    d.metadataFrom === 'www-authenticate' ? 'from the challenge' : 'at the well-known URL'
  }) → authorization server ${d.issuer} → its metadata at ${d.asMetadataUrl} (probe ${asAt} of ${d.asTried.length})`;
}
