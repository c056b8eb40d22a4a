/**
 * POST /introspect (RFC 7662). Only confidential clients (resource servers) may ask (§2.1); a
 * public client cannot authenticate. An active token is described (§2.2); anything else, be it
 * unknown, expired, revoked, rotated out or forged, is `{"active": false}` and nothing more.
 */
import { decodeJwt } from 'jose';
import type { Context } from 'koa';
import type { ServerContext } from '../context.ts';
import { parseBody, type Params } from '../http/body.ts';
import { authenticateClient } from '../http/client-auth.ts';
import { invalidClient, invalidRequest } from '../oauth-error.ts';
import { noStore } from '../http/headers.ts';
import { findPresentedToken, type PresentedToken } from '../verify.ts';
import type { Endpoint } from './endpoint.ts';
import { TOKEN_AUTH_METHODS } from './token.ts';

type Introspection = Record<string, unknown> & { active: boolean };

export const introspectionEndpoint: Endpoint = {
  mount(router, server) {
    router.post('/introspect', noStore(server.flaws), async (ctx) => {
      const params = await parseBody(ctx, ['form', 'json']);
      if (!server.flaws.has('introspection-open')) await authenticateResourceServer(ctx, server, params);
      if (params.token === undefined) throw invalidRequest('token is required');
      const found = await findPresentedToken(server, params.token, params.token_type_hint);
      ctx.body = (found && (await describe(server, found))) ?? inactive(server, params.token);
    });
  },
  metadata: (server) => ({
    introspection_endpoint: server.url('/introspect'),
    introspection_endpoint_auth_methods_supported: TOKEN_AUTH_METHODS.filter((method) => method !== 'none'),
  }),
};

async function authenticateResourceServer(ctx: Context, server: ServerContext, params: Params): Promise<void> {
  const { method } = await authenticateClient(ctx, params, (id) => server.findClient(id), server.flaws);
  if (method === 'none') throw invalidClient('introspection requires a confidential client');
}

/** §2.2: what an active token is; undefined for a refresh token that is no longer active. */
async function describe(server: ServerContext, found: PresentedToken): Promise<Introspection | undefined> {
  if (found.kind === 'access_token') {
    const { iss, sub, aud, client_id, scope, exp, iat, jti, act } = found.token.claims;
    return {
      active: true,
      iss,
      sub,
      aud,
      client_id,
      scope,
      exp,
      iat,
      jti,
      token_type: 'Bearer',
      ...(act ? { act } : {}),
    };
  }
  const { record, active } = found;
  const client = await server.findClient(record.clientId);
  if (!active || !client) return undefined;
  const exp = Math.floor(record.expiresAt / 1000);
  return {
    active: true,
    iss: server.issuer,
    sub: record.sub,
    client_id: record.clientId,
    scope: record.scope,
    exp,
    // Every refresh token lives exactly its client's refresh lifetime from issue.
    iat: exp - server.tokens.lifetimesFor(client).refreshToken,
    // No token_type: RFC 7662 takes it from RFC 6749 §7.1, which types access tokens only.
  };
}

/** §2.2: an inactive token reveals nothing else. */
function inactive(server: ServerContext, token: string): Introspection {
  if (server.flaws.has('introspection-always-active')) return { ...claimsOf(token), active: true };
  return { active: false };
}

/** The flaw's view of any token: whatever its payload says, unverified. */
function claimsOf(token: string): Record<string, unknown> {
  try {
    return decodeJwt(token);
  } catch {
    return {};
  }
}
