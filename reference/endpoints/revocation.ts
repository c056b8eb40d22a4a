/**
 * POST /revoke (RFC 7009). The client authenticates (a public client identifies itself) and may
 * revoke only its own tokens. Revoking a refresh token revokes its whole grant: the token family
 * and every access token issued from it. A token that is unknown, invalid or already revoked
 * gets 200 as well (§2.2): there is nothing left to revoke.
 */
import type { ServerContext } from '../context.ts';
import { grantRevocationUntil } from '../grants/issue.ts';
import { parseBody } from '../http/body.ts';
import { authenticateClient } from '../http/client-auth.ts';
import { invalidRequest } from '../oauth-error.ts';
import { noStore } from '../http/headers.ts';
import type { RegisteredClient } from '../options.ts';
import { findPresentedToken, type PresentedToken } from '../verify.ts';
import type { Endpoint } from './endpoint.ts';
import { TOKEN_AUTH_METHODS } from './token.ts';

export const revocationEndpoint: Endpoint = {
  mount(router, server) {
    router.post('/revoke', noStore(server.flaws), async (ctx) => {
      const params = await parseBody(ctx, ['form', 'json']);
      const { client } = await authenticateClient(ctx, params, (id) => server.findClient(id), server.flaws);
      if (params.token === undefined) throw invalidRequest('token is required');
      const found = await findPresentedToken(server, params.token, params.token_type_hint);
      if (found) await revoke(server, client, found);
      ctx.status = 200;
      ctx.body = '';
    });
  },
  metadata: (server) => ({
    revocation_endpoint: server.url('/revoke'),
    revocation_endpoint_auth_methods_supported: [...TOKEN_AUTH_METHODS],
  }),
};

async function revoke(server: ServerContext, client: RegisteredClient, found: PresentedToken): Promise<void> {
  const owner = found.kind === 'access_token' ? found.token.claims.client_id : found.record.clientId;
  // §2.1: the server verifies that the token was issued to the client asking, else refuses.
  if (owner !== client.clientId && !server.flaws.has('revocation-not-client-bound'))
    throw invalidRequest('the token was not issued to this client');
  if (server.flaws.has('revocation-noop')) return;
  if (found.kind === 'refresh_token') {
    // §2.1: the access tokens of the same grant SHOULD go too; the flaw revokes the refresh token alone.
    if (server.flaws.has('revocation-keeps-access')) await server.store.revokeRefresh(found.record.token);
    else await server.store.revokeGrant(found.record.grantId, grantRevocationUntil(server));
  } else {
    await server.store.revokeAccessToken(found.token.claims.jti);
  }
}
