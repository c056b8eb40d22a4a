/**
 * OpenAuth 0.4.3 (@openauthjs/openauth, with hono and @hono/node-server), npm's most downloaded TypeScript OAuth
 * server beside better-auth: an OAuth 2.0 authorization server only (RFC 8414 metadata at
 * /.well-known/oauth-authorization-server, JWT access tokens, no ID tokens, no userinfo, no introspection or
 * revocation). Installed with `npm ci` into ./server/node_modules from ./server/package-lock.json (the pinned
 * versions; never the project's node_modules), and run as a child process: `node server/server.mjs` on 127.0.0.1 at
 * the port it is given, its state in memory (fresh every start), stopped by its PID.
 *
 * The set-up (./server/server.mjs has the code and the reasons): the Password provider with its PasswordUI (a plain
 * HTML form, fields email and password), MemoryStorage, an exact-match `allow` table of the clients below in place of
 * the default (any client_id with any loopback redirect URI), ttl.retention 1 day (ttl.reuse kept at 60 s), the
 * Array.fromAsync polyfill Node 20 needs, and the test user registered at start through the provider's sign-up routes.
 *
 * Clients: OpenAuth has no client registry and no client authentication: a client is a client_id the `allow` table
 * names, and the token endpoint compares the form's client_id with the code's. The confidential roles get a secret
 * all the same (the harness's confidential roles need one), sent with client_secret_post so that client_id is in the
 * form: OpenAuth ignores it, and what the catalog finds about it (findings.md) is that no client is authenticated.
 * No client names a scope: OpenAuth reads none (the authorization request's scope is dropped, tokens carry none, its
 * metadata lists no scopes_supported), so the harness asks for none. legacy is a client of the allow table like the
 * others, for the implicit flow (response_type=token), which OpenAuth offers to every client. No machine client: its
 * client_credentials grant needs a non-standard `provider` parameter and a provider with a `client` hook, which the
 * Password provider lacks.
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { InteropIdp, RunningIdp } from '../idp.ts';
import { npmInstall, startNodeServer } from '../npm-install.ts';

/** ./server: package.json, package-lock.json, server.mjs, and node_modules once installed. */
const SERVER_DIR = fileURLToPath(new URL('./server/', import.meta.url));
/** Where the harness's redirects end: never fetched (the harness stops at the redirect). */
const CALLBACK = 'http://127.0.0.1:9/callback';

const secret = () => randomBytes(32).toString('base64url');

const idp: InteropIdp = {
  name: 'openauth',

  // npm ci into ./server/node_modules (a few seconds, 13 packages); nothing from apt-get.
  install: () => npmInstall(SERVER_DIR, 'openauth', (line) => console.log(line)),

  async start({ port, log }): Promise<RunningIdp> {
    const issuer = `http://127.0.0.1:${port}`;
    const user = { username: 'alice@example.com', password: secret() };
    const clients = {
      confidential: { clientId: 'web-app', clientSecret: secret(), authMethod: 'client_secret_post' },
      confidential2: { clientId: 'partner-app', clientSecret: secret(), authMethod: 'client_secret_post' },
      public: { clientId: 'spa', authMethod: 'none' },
      // OpenAuth's /authorize also answers response_type=token (its metadata lists code and token): the implicit flow.
      legacy: { clientId: 'legacy-app', authMethod: 'none' },
    };
    const table = Object.values(clients).map((c) => ({
      clientID: c.clientId,
      redirectURI: `${CALLBACK}/${c.clientId}`,
    }));
    const server = await startNodeServer({
      dir: SERVER_DIR,
      name: 'openauth',
      env: {
        INTEROP_PORT: String(port),
        INTEROP_USER_EMAIL: user.username,
        INTEROP_USER_PASSWORD: user.password,
        INTEROP_CLIENTS: JSON.stringify(table),
      },
      discoveryUrl: `${issuer}/.well-known/oauth-authorization-server`,
      timeoutMs: 60_000,
      ...(log ? { log } : {}),
    });
    return {
      targetConfig: {
        issuer,
        discoveryUrl: `${issuer}/.well-known/oauth-authorization-server`,
        tokenRequestEncoding: 'form',
        clients: Object.fromEntries(
          Object.entries(clients).map(([role, c]) => [
            role,
            { ...c, redirectUri: `${CALLBACK}/${c.clientId}`, firstParty: true },
          ]),
        ),
        user,
        // PasswordUI's sign-in form: a plain HTML form (email, password) the auto driver fills over HTTP.
        login: { driver: 'auto', usernameField: 'email', passwordField: 'password' },
        expectedFailures: [],
        timeouts: { requestMs: 30_000, scenarioMs: 180_000 },
      },
      stop: () => server.stop(),
    };
  },
};

export default idp;
