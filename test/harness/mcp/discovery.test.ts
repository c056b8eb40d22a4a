import { type Server, createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { Redactor } from '../../../harness/redact/redact.ts';
import {
  McpDiscoveryError,
  authorizationServerMetadataUrls,
  discoverFromMcpUrl,
  protectedResourceMetadataUrls,
} from '../../../harness/target/mcp-discovery.ts';

describe("MCP's probe orders", () => {
  it('AS metadata: for an issuer with a path, RFC 8414 insertion, OIDC insertion, OIDC appending', () => {
    expect(authorizationServerMetadataUrls('https://auth.example.com/tenant1')).toEqual([
      'https://auth.example.com/.well-known/oauth-authorization-server/tenant1',
      'https://auth.example.com/.well-known/openid-configuration/tenant1',
      'https://auth.example.com/tenant1/.well-known/openid-configuration',
    ]);
  });

  it('authorization server metadata: without a path, oauth-authorization-server then openid-configuration', () => {
    for (const issuer of ['https://auth.example.com', 'https://auth.example.com/'])
      expect(authorizationServerMetadataUrls(issuer)).toEqual([
        'https://auth.example.com/.well-known/oauth-authorization-server',
        'https://auth.example.com/.well-known/openid-configuration',
      ]);
  });

  it('protected resource metadata: at the path of the endpoint, then at the root', () => {
    expect(protectedResourceMetadataUrls('https://example.com/public/mcp')).toEqual([
      'https://example.com/.well-known/oauth-protected-resource/public/mcp',
      'https://example.com/.well-known/oauth-protected-resource',
    ]);
  });
});

/** A stub MCP server and authorization server on one origin: each path answers as `routes` says. */
type Route = { status: number; type?: string; body?: string; headers?: Record<string, string> };
let server: Server | undefined;
const seen: string[] = [];
async function stub(routes: (origin: string) => Record<string, Route>): Promise<string> {
  let origin = '';
  server = createServer((req, res) => {
    req.resume();
    const key = `${req.method} ${req.url}`;
    seen.push(key);
    const route = routes(origin)[key] ?? { status: 404 };
    res.writeHead(route.status, { 'content-type': route.type ?? 'application/json', ...route.headers });
    res.end(route.body ?? '');
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return origin;
}
afterEach(async () => {
  seen.length = 0;
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

const asMetadata = (issuer: string) =>
  JSON.stringify({ issuer, authorization_endpoint: `${issuer}/auth`, response_types_supported: ['code'] });
const options = { redactor: new Redactor(), requestTimeoutMs: 5000 };

describe('discoverFromMcpUrl (against a stub MCP server)', () => {
  it('401 → resource_metadata → RFC 9728 metadata → authorization_servers[0] → the AS metadata, in order', async () => {
    const origin = await stub((o) => ({
      'POST /mcp': {
        status: 401,
        headers: { 'www-authenticate': `Bearer resource_metadata="${o}/.well-known/oauth-protected-resource/mcp"` },
      },
      'GET /.well-known/oauth-protected-resource/mcp': {
        status: 200,
        body: JSON.stringify({ resource: `${o}/mcp`, authorization_servers: [`${o}/tenant`] }),
      },
      'GET /tenant/.well-known/openid-configuration': { status: 200, body: asMetadata(`${o}/tenant`) },
    }));
    const found = await discoverFromMcpUrl(`${origin}/mcp`, options);
    expect(found).toMatchObject({
      issuer: `${origin}/tenant`,
      metadataFrom: 'www-authenticate',
      metadataUrl: `${origin}/.well-known/oauth-protected-resource/mcp`,
      asMetadataUrl: `${origin}/tenant/.well-known/openid-configuration`,
    });
    expect(found.asTried.map((t) => t.status)).toEqual([404, 404, 200]);
    expect(seen).toEqual([
      'POST /mcp',
      'GET /.well-known/oauth-protected-resource/mcp',
      'GET /.well-known/oauth-authorization-server/tenant',
      'GET /.well-known/openid-configuration/tenant',
      'GET /tenant/.well-known/openid-configuration',
    ]);
  });

  it('no resource_metadata: the well-known URLs under every revision (prm.challenge judges it)', async () => {
    const origin = await stub((o) => ({
      'POST /mcp': { status: 401, headers: { 'www-authenticate': 'Bearer realm="mcp"' } },
      'GET /.well-known/oauth-protected-resource': {
        status: 200,
        body: JSON.stringify({ resource: `${o}/mcp`, authorization_servers: [o] }),
      },
      'GET /.well-known/oauth-authorization-server': { status: 200, body: asMetadata(o) },
    }));
    const found = await discoverFromMcpUrl(`${origin}/mcp`, { ...options, profile: 'mcp-2025-11-25' });
    expect(found.metadataFrom).toBe('well-known');
    expect(found.metadataTried).toEqual([
      `${origin}/.well-known/oauth-protected-resource/mcp`,
      `${origin}/.well-known/oauth-protected-resource`,
    ]);
    const old = await discoverFromMcpUrl(`${origin}/mcp`, { ...options, profile: 'mcp-2025-06-18' });
    expect(old.metadataFrom).toBe('well-known');
  });

  it.each([
    ['no 401', { 'POST /mcp': { status: 200 } }, 'the unauthenticated request'],
    [
      'a resource_metadata on another origin',
      {
        'POST /mcp': {
          status: 401,
          headers: { 'www-authenticate': 'Bearer resource_metadata="https://evil.example/x"' },
        },
      },
      'the challenge',
    ],
    [
      'metadata that is not JSON',
      {
        'POST /mcp': { status: 401, headers: { 'www-authenticate': 'Bearer realm="x"' } },
        'GET /.well-known/oauth-protected-resource/mcp': { status: 200, type: 'text/html', body: '<html>' },
      },
      'the protected resource metadata',
    ],
    [
      'no authorization_servers',
      {
        'POST /mcp': { status: 401, headers: { 'www-authenticate': 'Bearer realm="x"' } },
        'GET /.well-known/oauth-protected-resource': { status: 200, body: '{"resource":"x"}' },
      },
      'the protected resource metadata',
    ],
  ] as const)('names the step that failed: %s', async (_what, routes, step) => {
    const origin = await stub(() => routes as Record<string, Route>);
    const error = await discoverFromMcpUrl(`${origin}/mcp`, options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpDiscoveryError);
    expect((error as McpDiscoveryError).step).toBe(step);
    expect(seen.every((s) => !s.includes('evil'))).toBe(true);
  });

  it('no AS metadata at any probed URL: the step and every URL tried', async () => {
    const origin = await stub((o) => ({
      'POST /mcp': { status: 401, headers: { 'www-authenticate': 'Bearer realm="x"' } },
      'GET /.well-known/oauth-protected-resource': {
        status: 200,
        body: JSON.stringify({ authorization_servers: [o] }),
      },
    }));
    await expect(discoverFromMcpUrl(`${origin}/mcp`, options)).rejects.toThrow(
      /authorization server metadata: no metadata .*oauth-authorization-server \(404\), .*openid-configuration \(404\)/,
    );
  });
});
