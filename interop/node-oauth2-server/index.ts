/**
 * @node-oauth/oauth2-server 5.x (npm, a devDependency), wired into the minimal server of ./server.ts as its
 * documentation shows: the in-memory model (./model.ts), a plain HTML sign-in and consent page, the
 * authorization_code grant with PKCE (S256; plain refused, the library's default), refresh tokens (rotated,
 * the library's default), client_credentials. An OAuth 2.0 authorization server only: no OpenID Connect, RFC
 * 8414 metadata at /.well-known/oauth-authorization-server (published by the wrapper; the library has none).
 * Started in this process on 127.0.0.1 at the port it is given; nothing to install.
 *
 * Clients: confidential and confidential2 (code + refresh, client_secret_basic or _post), public (code with
 * PKCE, no secret, no refresh token: the library authenticates every refresh_token request unless told not
 * to for all clients), machine (client_credentials). The library keeps no notion of first or third party:
 * every client sees the consent page.
 */
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { z } from 'zod';
import type { InteropIdp, RunningIdp } from '../idp.ts';
import type { MemoryClient } from './model.ts';
import { startServer } from './server.ts';

/** Where the harness's redirects end: never fetched (the harness stops at the redirect). */
const CALLBACK = 'http://127.0.0.1:9/callback';
const SCOPES = ['profile', 'email', 'api:read'];

const secret = () => randomBytes(32).toString('base64url');

/** The library's version, for the log (its package.json). */
function libraryVersion(): string {
  const require = createRequire(import.meta.url);
  return z.object({ version: z.string() }).parse(require('@node-oauth/oauth2-server/package.json')).version;
}

const idp: InteropIdp = {
  name: 'node-oauth2-server',

  // An npm devDependency: nothing to install with apt-get.
  install: async () => {
    libraryVersion();
  },

  async start({ port, log }): Promise<RunningIdp> {
    const user = { id: 'alice', username: 'alice', password: secret() };
    const code = (id: string, scopes: string[], withSecret: boolean, refresh: boolean): MemoryClient => ({
      id,
      ...(withSecret ? { clientSecret: secret() } : {}),
      redirectUris: [`${CALLBACK}/${id}`],
      grants: refresh ? ['authorization_code', 'refresh_token'] : ['authorization_code'],
      scopes,
    });
    const clients = {
      confidential: code('web-app', ['profile', 'email', 'api:read'], true, true),
      confidential2: code('partner-app', ['profile', 'email'], true, true),
      public: code('spa', ['profile'], false, false),
      machine: {
        id: 'machine',
        clientSecret: secret(),
        redirectUris: [],
        grants: ['client_credentials'],
        scopes: ['api:read'],
      },
    } satisfies Record<string, MemoryClient>;
    const server = await startServer({
      host: '127.0.0.1',
      port,
      clients: Object.values(clients),
      users: [user],
      scopes: SCOPES,
    });
    log?.(`[node-oauth2-server] @node-oauth/oauth2-server ${libraryVersion()} at ${server.issuer}`);
    const scopeOf: Record<string, string> = {
      confidential: 'profile email',
      confidential2: 'profile email',
      public: 'profile',
      machine: 'api:read',
    };
    return {
      targetConfig: {
        issuer: server.issuer,
        discoveryUrl: `${server.issuer}/.well-known/oauth-authorization-server`,
        tokenRequestEncoding: 'form',
        clients: Object.fromEntries(
          Object.entries(clients).map(([role, c]) => [
            role,
            {
              clientId: c.id,
              ...(c.clientSecret ? { clientSecret: c.clientSecret } : {}),
              ...(c.redirectUris[0] ? { redirectUri: c.redirectUris[0] } : {}),
              scope: scopeOf[role],
              authMethod: c.clientSecret ? 'client_secret_basic' : 'none',
            },
          ]),
        ),
        user: { username: user.username, password: user.password },
        login: { usernameField: 'username', passwordField: 'password' },
        expectedFailures: [],
        timeouts: { requestMs: 30_000, scenarioMs: 180_000 },
      },
      stop: () => server.stop(),
    };
  },
};

export default idp;
