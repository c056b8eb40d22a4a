/**
 * The protected resource of the config (`resource`, RFC 9728; an MCP server's endpoint) as scenarios use it: the
 * request that needs a token (default: an MCP initialize request, POSTed as JSON-RPC), whether the resource accepted
 * a token (the answer is neither 401 nor 403), and an access token asked for a resource indicator (RFC 8707) through
 * the harness's flows: a code flow of a code-flow client, else client_credentials of the machine client.
 */
import {
  type Client,
  GRANT,
  type HttpResponse,
  PreconditionError,
  type ProtectedResourceConfig,
  type ScenarioContext,
} from '../../harness/scenario/scenario.ts';
import { errorMessage } from '../../protocol/guards.ts';
import { challengeOf, parseWwwAuthenticate } from '../../protocol/www-authenticate.ts';
import { CODE_FLOW_ROLES, cannotGetToken } from './clients.ts';
import { introspectionRequest, readJwt } from './presented-tokens.ts';

/** The skip reason of a scenario that needs the config's protected resource. */
export const NO_PROTECTED_RESOURCE =
  "no protected resource configured: add `resource` to the config or start from an MCP server's URL";

/** The roles that may carry a token for the resource, in the order tried (for `optionalRoles`). */
export const RESOURCE_TOKEN_ROLES = [...CODE_FLOW_ROLES, 'machine'] as const;

/** The config's protected resource; skipped with the reason when it names none. */
export function protectedResource(ctx: ScenarioContext): ProtectedResourceConfig {
  return ctx.resource ?? ctx.skip(NO_PROTECTED_RESOURCE);
}

/** The default request to an MCP server (MCP Lifecycle: initialize), as JSON-RPC over the Streamable HTTP transport. */
export const MCP_INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'idp-conformance', version: '1' },
  },
});

export interface ResourceRequestOptions {
  /** Sent as `Authorization: Bearer <token>` (RFC 6750 §2.1). */
  token?: string;
  /** Sent as the `access_token` query parameter instead (RFC 6750 §2.3), with no Authorization header. */
  queryToken?: string;
  label: string;
}

/** The config's request to the resource (default: an MCP initialize request), with the token where asked. */
export function resourceRequest(
  ctx: ScenarioContext,
  resource: ProtectedResourceConfig,
  options: ResourceRequestOptions,
): Promise<HttpResponse> {
  const request = resource.request;
  const method = request?.method ?? 'POST';
  const url = new URL(resource.url);
  if (options.queryToken !== undefined) url.searchParams.append('access_token', options.queryToken);
  // The config's headers without any Authorization of their own: where the token goes is the probe's to say.
  const headers: Record<string, string> = request
    ? Object.fromEntries(Object.entries(request.headers).filter(([name]) => name.toLowerCase() !== 'authorization'))
    : { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  const body = request ? request.body : MCP_INITIALIZE;
  return ctx.http.send({
    method,
    url: url.href,
    headers,
    ...(method === 'POST' && body !== undefined ? { body } : {}),
    label: options.label,
  });
}

/** "The resource accepted the token": its answer is neither 401 nor 403. */
export function acceptedByResource(res: HttpResponse): boolean {
  return res.status !== 401 && res.status !== 403;
}

/**
 * A probe's token was refused: 401 or 403, or a 400 whose Bearer challenge names an error (RFC 6750 §3.1:
 * invalid_request, e.g. for a token sent by a method the resource does not support).
 */
export function tokenRefused(res: HttpResponse): boolean {
  if (!acceptedByResource(res)) return true;
  const bearer = challengeOf(parseWwwAuthenticate(res.header('www-authenticate')), 'Bearer');
  return res.status === 400 && bearer?.params.error !== undefined;
}

/** The resource's answer in words: `HTTP 401 (WWW-Authenticate: Bearer error="invalid_token")`. */
export function resourceAnswer(res: HttpResponse): string {
  const challenge = res.header('www-authenticate');
  return `HTTP ${res.status}${challenge === undefined ? '' : ` (WWW-Authenticate: ${challenge.slice(0, 300)})`}`;
}

/** An access token asked for `resource`, how it was asked; or why none was issued (a missing premise). */
export type ResourceToken = { token: string; refreshToken?: string; client: Client; how: string } | { refused: string };

/**
 * The clients that can ask for a token here, in the order tried (the code-flow clients, as an MCP client is one,
 * then the machine client); skipped, with why each cannot, when none can.
 */
function tokenClients(ctx: ScenarioContext): Client[] {
  const tried: string[] = [];
  const clients: Client[] = [];
  for (const role of RESOURCE_TOKEN_ROLES) {
    const client = ctx.clients[role];
    const why = client ? cannotGetToken(ctx, client) : 'not configured';
    if (client && !why) clients.push(client);
    else tried.push(`${role}: ${why}`);
  }
  if (clients.length === 0)
    ctx.skip(
      'no client can ask for an access token for the resource (a code-flow client with a user, or the machine ' +
        `client): ${tried.join('; ')}`,
    );
  return clients;
}

/**
 * An access token of `client` for the resource indicator `resource` (RFC 8707 §2.1, §2.2), asked as a client would:
 * a code flow with `resource` in the authorization and the token request, or client_credentials with `resource`.
 */
export async function askToken(
  ctx: ScenarioContext,
  client: Client,
  resource: string | undefined,
): Promise<ResourceToken> {
  const machine = client.role === 'machine';
  const asked = resource === undefined ? 'without a resource indicator' : `with resource=${resource}`;
  const how = machine ? `client_credentials as machine ${asked}` : `a code flow as ${client.role} ${asked}`;
  let res: HttpResponse;
  try {
    res = await ctx.http.token(client, await grantParams(ctx, client, resource), {
      label: `token request (${machine ? 'client_credentials' : 'authorization_code'}) ${asked}`,
    });
  } catch (error) {
    if (error instanceof PreconditionError) return { refused: `${how}: ${errorMessage(error)}` };
    throw error;
  }
  if (res.status !== 200 || typeof res.body.access_token !== 'string') {
    const error = typeof res.body.error === 'string' ? ` ${res.body.error}` : '';
    return { refused: `${how}: the token endpoint answered HTTP ${res.status}${error}` };
  }
  return {
    token: res.body.access_token,
    ...(typeof res.body.refresh_token === 'string' ? { refreshToken: res.body.refresh_token } : {}),
    client,
    how,
  };
}

/**
 * The token request for `tokenResource` (RFC 8707 §2.2): client_credentials, or a fresh code of the client's own to
 * redeem, asked for with `authorizeResource` (§2.1; undefined: none, as for a resource named at the token request
 * only).
 */
export async function grantParams(
  ctx: ScenarioContext,
  client: Client,
  authorizeResource: string | undefined,
  tokenResource: string | undefined = authorizeResource,
): Promise<Record<string, string | undefined>> {
  if (client.role === 'machine')
    return { grant_type: GRANT.clientCredentials, scope: client.scope || undefined, resource: tokenResource };
  const code = await ctx.flows.code(client.role, authorizeResource ? { params: { resource: authorizeResource } } : {});
  return {
    grant_type: GRANT.code,
    code: code.code,
    redirect_uri: code.request.redirect_uri,
    code_verifier: code.pkce?.verifier,
    resource: tokenResource,
  };
}

/**
 * A token the resource accepts (the control): each client that can ask tries in turn, until the resource accepts the
 * token issued for it. None issued: skipped (a missing premise); issued but refused by the resource: an error, with
 * each answer.
 */
export async function acceptedToken(
  ctx: ScenarioContext,
  resource: ProtectedResourceConfig,
): Promise<Extract<ResourceToken, { token: string }>> {
  const notIssued: string[] = [];
  const refused: string[] = [];
  for (const client of tokenClients(ctx)) {
    const got = await askToken(ctx, client, resource.url);
    if ('refused' in got) {
      notIssued.push(got.refused);
      continue;
    }
    const control = await resourceRequest(ctx, resource, {
      token: got.token,
      label: `control: the resource request with the access token of ${client.role} in the Authorization header`,
    });
    if (acceptedByResource(control)) {
      ctx.evidence.note(`The resource accepted a token issued for it (${got.how}): ${resourceAnswer(control)}.`);
      return got;
    }
    refused.push(`${got.how}: ${resourceAnswer(control)}`);
  }
  if (refused.length > 0)
    throw new PreconditionError(
      `the resource refused every token issued for it (${refused.join('; ')})` +
        `${notIssued.length ? `, and none was issued to the others (${notIssued.join('; ')})` : ''}; the request ` +
        'in `resource.request` of the config may need other headers or a body the resource takes',
    );
  return ctx.skip(
    `the authorization server issued no access token for the resource ${resource.url} (${notIssued.join('; ')}), ` +
      'so there is no token to present',
  );
}

/** The aud the token carries (a JWT's claim), or the one introspection gives (RFC 7662 §2.2), or undefined. */
export async function audienceOf(
  ctx: ScenarioContext,
  token: string,
): Promise<{ value: unknown; from: string } | undefined> {
  const jwt = readJwt(token);
  if (jwt && jwt.payload.aud !== undefined) return { value: jwt.payload.aud, from: 'the JWT' };
  if (!ctx.target.endpoints.introspection || ctx.clients.confidential?.clientSecret === undefined) return undefined;
  const res = await introspectionRequest(ctx, 'confidential', token, {
    hint: 'access_token',
    label: 'introspection of the access token (its aud)',
  });
  if (res.status === 200 && res.body.active === true && res.body.aud !== undefined)
    return { value: res.body.aud, from: 'introspection' };
  return undefined;
}
