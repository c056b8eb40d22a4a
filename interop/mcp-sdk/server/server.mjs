/**
 * The MCP TypeScript SDK 1.32.2 (@modelcontextprotocol/sdk) as an MCP server with its own authorization server, the
 * way its docs and its example server (src/examples/server/simpleStreamableHttp.ts with --oauth-strict) set one up,
 * run by interop/mcp-sdk/index.ts as a child process: `node server.mjs` with this folder's own node_modules (npm ci
 * of ./package-lock.json), on 127.0.0.1 at INTEROP_PORT, its state in memory (fresh each start).
 *
 * The set-up, and why (interop/mcp-sdk/index.ts and findings.md say the same):
 * - createMcpExpressApp() (the SDK's express app: its DNS rebinding protection for a server on 127.0.0.1, and the
 *   JSON body parser), listening on 127.0.0.1 only.
 * - The authorization server: mcpAuthRouter (RFC 8414 metadata, /authorize, /token, RFC 7591 /register, and the
 *   RFC 9728 metadata of the MCP endpoint through its resourceServerUrl option), mounted at the root as its
 *   documentation says, with the SDK's own demo provider, DemoInMemoryAuthProvider (the package's
 *   examples/server/demoInMemoryOAuthProvider.js, imported as it ships): clients registered in memory, an
 *   authorization endpoint that signs a fixed "demo_user" in without asking anyone and redirects with a code at once,
 *   opaque random access tokens for one hour, no refresh tokens, no revocation. Its resource check is the one the
 *   SDK's example turns on with --oauth-strict: a code is redeemed only when the authorization request named this
 *   server's MCP endpoint as its `resource` (RFC 8707).
 * - Issuer http://127.0.0.1:PORT (the router's check lets a loopback issuer be http), scopes_supported
 *   ["mcp:tools"] and the resource name "MCP Demo Server", as in the example.
 * - Rate limiting off (authorizationOptions, tokenOptions, clientRegistrationOptions: { rateLimit: false }, the
 *   router's documented switch): its defaults (100 authorization requests and 50 token requests per 15 minutes, 20
 *   registrations per hour, per address) would answer most of the catalog, one client on one address, with 429.
 * - The MCP endpoint /mcp: a Streamable HTTP transport, stateless (sessionIdGenerator undefined) with JSON responses
 *   (enableJsonResponse), a new McpServer with one tool per request, as the SDK's server guide shows; POST only
 *   (GET and DELETE answer 405 as in its stateless example), behind requireBearerAuth with the demo provider as the
 *   verifier, the resource_metadata URL in its challenge (getOAuthProtectedResourceMetadataUrl) and
 *   expectedResource set to the endpoint (--oauth-strict: only tokens issued for this server).
 */
import { DemoInMemoryAuthProvider } from '@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { getOAuthProtectedResourceMetadataUrl, mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { resourceUrlFromServerUrl } from '@modelcontextprotocol/sdk/shared/auth-utils.js';
import * as z from 'zod/v4';

const port = Number(process.env.INTEROP_PORT);
if (!port) {
  console.error('server.mjs: INTEROP_PORT is needed');
  process.exit(2);
}

const issuerUrl = new URL(`http://127.0.0.1:${port}`);
const mcpServerUrl = new URL('/mcp', issuerUrl);

// The example's setupAuthServer with strictResource: a code is redeemed only for this MCP server's resource.
const provider = new DemoInMemoryAuthProvider((resource) => {
  if (!resource) return false;
  return resource.toString() === resourceUrlFromServerUrl(mcpServerUrl).toString();
});

const app = createMcpExpressApp({ host: '127.0.0.1' });

app.use(
  mcpAuthRouter({
    provider,
    issuerUrl,
    resourceServerUrl: mcpServerUrl,
    scopesSupported: ['mcp:tools'],
    resourceName: 'MCP Demo Server',
    authorizationOptions: { rateLimit: false },
    tokenOptions: { rateLimit: false },
    clientRegistrationOptions: { rateLimit: false },
  }),
);

const authMiddleware = requireBearerAuth({
  verifier: provider,
  requiredScopes: [],
  resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpServerUrl),
  expectedResource: mcpServerUrl,
});

/** The MCP server of one request: one tool, as the server guide's first example. */
function getServer() {
  const server = new McpServer({ name: 'interop-mcp-sdk', version: '1.0.0' });
  server.registerTool(
    'greet',
    { title: 'Greeting', description: 'A greeting', inputSchema: { name: z.string() } },
    async ({ name }) => ({ content: [{ type: 'text', text: `Hello, ${name}!` }] }),
  );
  return server;
}

app.post('/mcp', authMiddleware, async (req, res) => {
  const server = getServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    transport.close();
    server.close();
  });
  try {
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  } catch (error) {
    console.error('Error handling MCP request:', error);
    if (!res.headersSent) {
      res.status(500).json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null });
    }
  }
});

const notAllowed = (_req, res) => {
  res.status(405).json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null });
};
app.get('/mcp', notAllowed);
app.delete('/mcp', notAllowed);

app.listen(port, '127.0.0.1', (error) => {
  if (error) {
    console.error('Failed to start server:', error);
    process.exit(1);
  }
  console.log(`MCP SDK 1.32.2 at ${issuerUrl.origin} (MCP endpoint ${mcpServerUrl.href})`);
});
