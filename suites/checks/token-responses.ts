/**
 * Successful token responses for every grant the run can use with the clients it has (RFC 6749 §5.1 binds each of
 * them): the authorization code (a code-flow client and the user), a refresh (when that code response carried a
 * refresh_token), client_credentials (the machine client). token.response-format, token.no-store and
 * token.json-body judge what comes back; none of them needs one particular client.
 */
import {
  type Client,
  GRANT,
  type HttpResponse,
  type Params,
  type ScenarioContext,
} from '../../harness/scenario/scenario.ts';
import { CODE_FLOW_ROLES, findClient } from './clients.ts';
import { codeFlowScope } from './scope.ts';

export interface GrantResponse {
  /** The grant, as a sentence part: "authorization_code as the confidential client". */
  what: string;
  res: HttpResponse;
}

/** Which grants tokenResponses can use with these clients, or the reason there is none. */
export function tokenGrantsAvailable(ctx: ScenarioContext): string | undefined {
  const code = ctx.user && ctx.target.supports(`grant:${GRANT.code}`) && findClient(ctx, CODE_FLOW_ROLES, redirects);
  const machine = ctx.clients.machine && ctx.target.supports(`grant:${GRANT.clientCredentials}`);
  if (code || machine) return undefined;
  return (
    'needs a client to get tokens with: a code-flow client (clients.confidential, public or confidential2 with a ' +
    'redirectUri) and a user, or a machine client (clients.machine) for client_credentials'
  );
}

const redirects = (c: { redirectUri?: string }) => !!c.redirectUri;

/**
 * One token response per grant the run can use (tokenGrantsAvailable), in this order: client_credentials,
 * authorization_code, refresh_token. `encoding` sends each request form-encoded or as JSON. A set-up step that does
 * not work (no code) throws as set-up does; a token request is sent and returned as it was answered.
 */
export async function tokenResponses(
  ctx: ScenarioContext,
  options: { encoding?: 'form' | 'json'; only?: 'first' } = {},
): Promise<GrantResponse[]> {
  const out: GrantResponse[] = [];
  const enc = options.encoding ? { encoding: options.encoding } : {};
  const machine = ctx.clients.machine;
  if (machine && ctx.target.supports(`grant:${GRANT.clientCredentials}`)) {
    const res = await ctx.http.token(
      machine,
      { grant_type: GRANT.clientCredentials, scope: machine.scope || undefined },
      { ...enc, label: `token request (client_credentials${options.encoding === 'json' ? ', JSON body' : ''})` },
    );
    out.push({ what: 'client_credentials as the machine client', res });
    if (options.only === 'first') return out;
  }
  const client = ctx.user && ctx.target.supports(`grant:${GRANT.code}`) && findClient(ctx, CODE_FLOW_ROLES, redirects);
  if (!client) return out;
  const got = await ctx.flows.code(client.role, { scope: codeFlowScope(ctx.target, client.scope) });
  const res = await ctx.http.token(
    client,
    {
      grant_type: GRANT.code,
      code: got.code,
      redirect_uri: got.request.redirect_uri,
      code_verifier: got.pkce?.verifier,
    },
    { ...enc, label: `token request (authorization_code${options.encoding === 'json' ? ', JSON body' : ''})` },
  );
  out.push({ what: `authorization_code as the ${client.role} client`, res });
  const refreshToken = res.body.refresh_token;
  if (options.only === 'first' || typeof refreshToken !== 'string' || !refreshToken) return out;
  ctx.target.observe(
    client.role,
    'grant:refresh_token',
    `a refresh_token in a token response to the ${client.role} client`,
  );
  const refreshed = await ctx.http.token(
    client,
    { grant_type: GRANT.refresh, refresh_token: refreshToken },
    { ...enc, label: `token request (refresh_token${options.encoding === 'json' ? ', JSON body' : ''})` },
  );
  out.push({ what: `refresh_token as the ${client.role} client`, res: refreshed });
  return out;
}

/**
 * A token request's parameters for `client` (one cannotGetToken accepts): client_credentials for the machine client,
 * else a fresh code of the client's own to redeem (a code flow each time it is called).
 */
export async function freshGrantParams(ctx: ScenarioContext, client: Client): Promise<Params> {
  if (client.role === 'machine') return { grant_type: GRANT.clientCredentials, scope: client.scope || undefined };
  const code = await ctx.flows.code(client.role);
  return {
    grant_type: GRANT.code,
    code: code.code,
    redirect_uri: code.request.redirect_uri,
    code_verifier: code.pkce?.verifier,
  };
}
