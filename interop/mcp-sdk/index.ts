/**
 * The MCP TypeScript SDK 1.32.2 (@modelcontextprotocol/sdk, with zod 4 its peer), an MCP server that is its own
 * authorization server: the SDK's authorization-server router (mcpAuthRouter, express) with the SDK's demo in-memory
 * provider (DemoInMemoryAuthProvider, from the package's examples), and a Streamable HTTP MCP endpoint at /mcp behind
 * the SDK's bearer middleware (requireBearerAuth) with its RFC 9728 metadata. Installed with `npm ci` into
 * ./server/node_modules from ./server/package-lock.json (never the project's node_modules), run as a child process:
 * `node server/server.mjs` on 127.0.0.1 at the port it is given, its state in memory (fresh every start), stopped by
 * its PID.
 *
 * The set-up (./server/server.mjs has the code and the reasons): the SDK example server's --oauth-strict mode on one
 * origin — issuer http://127.0.0.1:PORT/ (the router publishes the issuer with the URL's trailing slash), the MCP
 * endpoint http://127.0.0.1:PORT/mcp as the resource, a code redeemed only for that resource and a token accepted
 * only when issued for it — with the router's rate limiting off (its defaults would answer most of the catalog 429).
 *
 * Clients: none configured; the router offers dynamic registration (RFC 7591, no RFC 7592 management), so the
 * harness registers the roles it needs (`registration.enabled`), as an MCP client does. The user: the demo provider
 * has no login; its authorization endpoint signs a fixed "demo_user" in and redirects with a code at once. The config
 * still names a user (the scenarios that walk a sign-in need one); the login driver follows the redirect and is
 * never asked for a password. Every authorization request carries `resource` (the MCP endpoint) as an MCP client's
 * does (`authorizationParams`): the strict demo provider redeems no code without it.
 *
 * Judged under the newest MCP profile (mcp-2026-07-28), which counts the RFCs as the rfc profile does and the MCP
 * revision's own sentences besides.
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { InteropIdp, RunningIdp } from '../idp.ts';
import { npmInstall, startNodeServer } from '../npm-install.ts';

/** ./server: package.json, package-lock.json, server.mjs, and node_modules once installed. */
const SERVER_DIR = fileURLToPath(new URL('./server/', import.meta.url));

const idp: InteropIdp = {
  name: 'mcp-sdk',

  profile: {
    name: 'mcp-2026-07-28',
    why: 'an MCP server: its authorization is held to the MCP revision (and the RFCs it cites), not only the RFCs',
  },

  // npm ci into ./server/node_modules (seconds, 98 packages); nothing from apt-get.
  install: () => npmInstall(SERVER_DIR, 'mcp-sdk', (line) => console.log(line)),

  async start({ port, log }): Promise<RunningIdp> {
    const origin = `http://127.0.0.1:${port}`;
    // What the router publishes as its issuer: new URL(origin).href, with the path "/".
    const issuer = `${origin}/`;
    const mcp = `${origin}/mcp`;
    const discoveryUrl = `${origin}/.well-known/oauth-authorization-server`;
    const server = await startNodeServer({
      dir: SERVER_DIR,
      name: 'mcp-sdk',
      env: { INTEROP_PORT: String(port) },
      discoveryUrl,
      timeoutMs: 60_000,
      ...(log ? { log } : {}),
    });
    return {
      targetConfig: {
        issuer,
        discoveryUrl,
        tokenRequestEncoding: 'form',
        registration: {
          enabled: true,
          roles: ['confidential', 'confidential2', 'public'],
          // The methods its metadata lists (client_secret_post, none): the token endpoint reads no Authorization.
          metadata: {
            confidential: { token_endpoint_auth_method: 'client_secret_post' },
            confidential2: { token_endpoint_auth_method: 'client_secret_post' },
          },
        },
        resource: { url: mcp },
        authorizationParams: { resource: mcp },
        // The demo provider signs "demo_user" in without a page: this password is never asked for.
        user: { username: 'demo_user', password: randomBytes(24).toString('base64url') },
        login: { driver: 'auto' },
        expectedFailures: [],
        timeouts: { requestMs: 30_000, scenarioMs: 180_000 },
      },
      stop: () => server.stop(),
    };
  },
};

export default idp;
