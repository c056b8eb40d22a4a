/** RFC 6749 §4.4: client credentials. A self-contained access token and never a refresh token (SPEC token rule 1). */
import { unauthorizedClient } from '../http/errors.ts';
import { grantScope } from '../scopes.ts';
import { randomToken } from '../tokens.ts';
import type { Grant } from './grant.ts';
import { issueTokens, newRefreshRecord } from './issue.ts';

export const clientCredentials: Grant = {
  grantType: 'client_credentials',
  parameters: ['scope'],
  async handler({ server, client, params }) {
    if (client.clientSecret === undefined) throw unauthorizedClient('client_credentials requires a confidential client');
    const scope = grantScope(params.scope ?? client.allowedScope, client.allowedScope, server.flaws);
    const response = await issueTokens(server, { client, sub: client.clientId, scope });
    if (server.flaws.has('cc-issues-refresh')) {
      const refresh = newRefreshRecord(server, {
        client, sub: client.clientId, scope, grantId: randomToken(), authTime: Math.floor(server.now() / 1000),
      });
      await server.store.saveRefresh(refresh);
      response.refresh_token = refresh.token;
    }
    return response;
  },
};
