/**
 * RFC 6749 §4.3: the resource owner password credentials grant. Deprecated (RFC 9700 §2.4) and
 * opt-in: only a confidential client whose grantTypes include "password" may use it, and it
 * never issues a refresh token (SPEC grant table).
 */
import { invalidGrant, invalidRequest, unauthorizedClient } from '../oauth-error.ts';
import { grantScope } from '../scopes.ts';
import { randomToken } from '../tokens.ts';
import { authenticateUser } from '../users.ts';
import type { Grant } from './grant.ts';
import { addRefreshToken, issueTokens } from './issue.ts';

export const password: Grant = {
  grantType: 'password',
  parameters: ['username', 'password', 'scope'],
  deprecated: true,
  async handler({ server, client, params }) {
    if (client.clientSecret === undefined)
      throw unauthorizedClient('the password grant requires a confidential client');
    if (params.username === undefined) throw invalidRequest('username is required');
    if (params.password === undefined) throw invalidRequest('password is required');
    const scope = grantScope(params.scope ?? client.allowedScope, client.allowedScope, server.flaws);
    const user = authenticateUser(server, params.username, params.password);
    if (!user) throw invalidGrant('the username or password is wrong');
    const grant = { client, sub: user.sub, scope, grantId: randomToken(), authTime: Math.floor(server.now() / 1000) };
    const response = await issueTokens(server, {
      ...grant,
      ...(params.scope === undefined ? {} : { requestedScope: params.scope }),
    });
    if (server.flaws.has('password-issues-refresh')) await addRefreshToken(server, response, grant);
    return response;
  },
};
