/** RFC 6749 §4.4: client credentials. A self-contained access token and never a refresh token (SPEC token rule 1). */
import { unauthorizedClient } from '../oauth-error.ts';
import { isPublicClient } from '../options.ts';
import { grantScope } from '../scopes.ts';
import { randomToken } from '../tokens.ts';
import type { Grant } from './grant.ts';
import { addRefreshToken, issueTokens } from './issue.ts';

export const clientCredentials: Grant = {
  grantType: 'client_credentials',
  parameters: ['scope'],
  async handler({ server, client, params }) {
    if (isPublicClient(client)) throw unauthorizedClient('client_credentials requires a confidential client');
    const scope = grantScope(params.scope ?? client.allowedScope, client.allowedScope, server.flaws);
    const response = await issueTokens(server, {
      client,
      sub: client.clientId,
      scope,
      ...(params.scope === undefined ? {} : { requestedScope: params.scope }),
    });
    if (server.flaws.has('cc-issues-refresh')) {
      await addRefreshToken(server, response, {
        client,
        sub: client.clientId,
        scope,
        grantId: randomToken(),
        authTime: Math.floor(server.now() / 1000),
      });
    }
    return response;
  },
};
