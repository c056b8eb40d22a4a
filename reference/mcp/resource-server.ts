/**
 * The protected MCP endpoint (`serve --mcp`): `{origin}/mcp` (the issuer's origin, whatever its path), its resource
 * identifier exactly that URL (RFC 8707), its metadata at `{origin}/.well-known/oauth-protected-resource/mcp`
 * (RFC 9728 §3.1), and the challenge that points there (RFC 9728 §5.1, RFC 6750 §3). It accepts only Bearer tokens
 * in the Authorization header (MCP: never in the query string) issued by this server for this resource
 * (MCP 2025-11-25 "Token Audience Binding and Validation"), and answers a minimal JSON-RPC: initialize,
 * server/discover and tools/list; other methods get method-not-found.
 *
 * Its four planted flaws sit at their checks: prm-resource-mismatch (the metadata's resource), prm-challenge-without-
 * metadata (the challenge), rs-audience-unchecked (the audience), rs-query-token-accepted (the query string).
 */
import type { Context, Middleware } from 'koa';
import type { ServerContext } from '../context.ts';
import { parseJsonBody } from '../http/body.ts';
import { setBaseHeaders } from '../http/headers.ts';
import { errorDescription } from '../oauth-error.ts';
import { mcpResourceOf } from '../security-profile.ts';
import { InvalidTokenError, verifyPresentedAccessToken } from '../verify.ts';

/** The scopes the MCP endpoint names in its metadata and challenge (all the clients of the reference may get them). */
export const MCP_SCOPES = ['api:read', 'api:write'] as const;

/** RFC 9728 §3.1: the well-known suffix inserted between the host and the resource's path. */
export const PRM_PREFIX = '/.well-known/oauth-protected-resource';

/** The protected resource's metadata URL of a resource identifier (RFC 9728 §3.1). */
export function protectedResourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  return `${url.origin}${PRM_PREFIX}${url.pathname.replace(/\/$/, '')}`;
}

/** RFC 9728 §2: the metadata document (the flaw prm-resource-mismatch names the issuer, without /mcp). */
export function protectedResourceMetadata(server: ServerContext): Record<string, unknown> {
  const resource = mcpResourceOf(server.issuer);
  return {
    resource: server.flaws.has('prm-resource-mismatch') ? server.issuer : resource,
    authorization_servers: [server.issuer],
    bearer_methods_supported: ['header'],
    scopes_supported: [...MCP_SCOPES],
    resource_name: 'idp-conformance reference MCP endpoint',
  };
}

/**
 * The MCP routes, ahead of the router (whose routes are under the issuer's path, while these are at the origin):
 * GET {origin}/.well-known/oauth-protected-resource/mcp, and GET and POST {origin}/mcp.
 */
export function mcpRoutes(server: ServerContext): Middleware {
  return async (ctx, next) => {
    const resource = new URL(mcpResourceOf(server.issuer));
    const metadata = new URL(protectedResourceMetadataUrl(resource.href));
    const read = ctx.method === 'GET' || ctx.method === 'HEAD';
    if (read && ctx.path === metadata.pathname) {
      setBaseHeaders(ctx);
      ctx.set('Cache-Control', 'public, max-age=60');
      ctx.type = 'application/json';
      ctx.body = JSON.stringify(protectedResourceMetadata(server));
      return;
    }
    if (ctx.path !== resource.pathname || !(ctx.method === 'GET' || ctx.method === 'POST')) return next();
    setBaseHeaders(ctx);
    if (!server.flaws.has('no-store-missing')) ctx.set('Cache-Control', 'no-store');
    await mcp(ctx, server);
  };
}

/** RFC 6750 §2.1: b64token. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** A refusal: 401 with the challenge (RFC 6750 §3, RFC 9728 §5.1); `error` when a token was sent and refused. */
function challenge(ctx: Context, server: ServerContext, error?: { code: string; description: string }): void {
  const params = [
    ...(server.flaws.has('prm-challenge-without-metadata')
      ? ['realm="idp-conformance"']
      : [`resource_metadata="${protectedResourceMetadataUrl(mcpResourceOf(server.issuer))}"`]),
    ...(error ? [`error="${error.code}"`, `error_description="${errorDescription(error.description)}"`] : []),
    `scope="${MCP_SCOPES.join(' ')}"`,
  ];
  ctx.status = error?.code === 'invalid_request' ? 400 : 401;
  ctx.set('WWW-Authenticate', `Bearer ${params.join(', ')}`);
  if (error) ctx.body = { error: error.code, error_description: errorDescription(error.description) };
}

/**
 * The token of the request: the Authorization header's Bearer credentials; undefined when there are none. MCP: "Access
 * tokens MUST NOT be included in the URI query string": this resource never looks there (bearer_methods_supported is
 * header), so a token there alone is no token (401 and the challenge), and beside a header one it is a second method
 * (RFC 6750 §2: invalid_request, 400). The flaw rs-query-token-accepted reads it from there.
 */
function tokenOf(ctx: Context, server: ServerContext): string | undefined | { refused: string } {
  const match = /^bearer(?:\s+(.*))?$/i.exec(ctx.get('authorization').trim());
  const fromHeader = match ? (match[1] ?? '').trim() : undefined;
  if (fromHeader === '') return { refused: 'empty Bearer credentials are' };
  const fromQuery = new URLSearchParams(ctx.querystring).get('access_token') ?? undefined;
  if (fromQuery === undefined) return fromHeader;
  if (server.flaws.has('rs-query-token-accepted')) return fromHeader ?? fromQuery;
  return fromHeader === undefined ? undefined : { refused: 'a token in the query string beside the header is' };
}

/** GET and POST /mcp. */
async function mcp(ctx: Context, server: ServerContext): Promise<void> {
  const token = tokenOf(ctx, server);
  if (token === undefined) return challenge(ctx, server);
  if (typeof token !== 'string') {
    return challenge(ctx, server, { code: 'invalid_request', description: `${token.refused} not accepted` });
  }
  const refusal = await refuse(server, token);
  if (refusal !== undefined) return challenge(ctx, server, { code: 'invalid_token', description: refusal });
  if (ctx.method !== 'POST') {
    // Streamable HTTP without a server-sent event stream: GET is not offered.
    ctx.status = 405;
    ctx.set('Allow', 'POST');
    return;
  }
  await jsonRpc(ctx);
}

/** Why the token is refused, or undefined when this resource accepts it. */
async function refuse(server: ServerContext, token: string): Promise<string | undefined> {
  if (!B64TOKEN.test(token)) return 'the Bearer token is malformed';
  let claims;
  try {
    ({ claims } = await verifyPresentedAccessToken(server, token));
  } catch (err) {
    if (err instanceof InvalidTokenError) return err.message;
    throw err;
  }
  // RFC 8707 §2, MCP: only tokens issued for this resource; the flaw takes any of this server's.
  const resource = mcpResourceOf(server.issuer);
  if (![claims.aud].flat().includes(resource) && !server.flaws.has('rs-audience-unchecked'))
    return 'the token was not issued for this resource';
  // A DPoP-bound token (RFC 9449 §7.1) is not a Bearer token.
  if (claims.cnf !== undefined) return 'the token is sender-constrained (DPoP), not a Bearer token';
  return undefined;
}

/** JSON-RPC 2.0: one request object; initialize, server/discover, tools/list; else method not found (-32601). */
async function jsonRpc(ctx: Context): Promise<void> {
  const rpcError = (status: number, id: unknown, code: number, message: string) => {
    ctx.status = status;
    ctx.body = { jsonrpc: '2.0', id: id ?? null, error: { code, message } };
  };
  let body: unknown;
  try {
    body = await parseJsonBody(ctx, (description) => new Error(description));
  } catch {
    return rpcError(400, null, -32700, 'parse error: a JSON-RPC request (application/json) is expected');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body) || !('method' in body))
    return rpcError(400, null, -32600, 'invalid request: one JSON-RPC request object is expected');
  const id = 'id' in body ? body.id : undefined;
  const method = body.method;
  // A notification (no id) is accepted without an answer.
  if (id === undefined) {
    ctx.status = 202;
    return;
  }
  const params = 'params' in body && typeof body.params === 'object' && body.params !== null ? body.params : {};
  const asked = 'protocolVersion' in params ? params.protocolVersion : undefined;
  const serverInfo = { name: 'idp-conformance-reference', version: '1.0.0' };
  const results: Record<string, unknown> = {
    initialize: {
      protocolVersion: typeof asked === 'string' ? asked.slice(0, 40) : '2025-11-25',
      capabilities: { tools: {} },
      serverInfo,
    },
    'server/discover': { serverInfo, capabilities: { tools: {} } },
    'tools/list': { tools: [] },
  };
  if (typeof method !== 'string' || !Object.hasOwn(results, method))
    return rpcError(200, id, -32601, 'method not found');
  ctx.body = { jsonrpc: '2.0', id, result: results[method] };
}
