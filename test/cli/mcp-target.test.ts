/** `run --target <MCP server URL> --profile mcp…` and `--user` on the command line: the usage, the exit codes. */
import { type Server, createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../support/cli.ts';
import { closedPort } from '../support/ports.ts';
import { loadMcpTarget } from '../../cli/mcp-target.ts';

let server: Server;
let origin = '';
beforeAll(async () => {
  // Not an MCP server: it answers 200 without a token.
  server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('run under an MCP profile', () => {
  it.each([
    [['--user', 'alice'], /--user must be NAME:PASSWORD/],
    [['--profile', 'mcp-2024'], /--profile must be one of .*mcp-2026-07-28, mcp,? not "mcp-2024"/],
  ])('usage errors exit 2: %j', async (args, message) => {
    const { code, stderr } = await cli('run', ...args);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });

  it('an MCP URL whose discovery breaks off exits 2, naming the step', async () => {
    const { code, stderr } = await cli('run', '--target', `${origin}/mcp`, '--profile', 'mcp', '--report', '/tmp/x');
    expect(code).toBe(2);
    expect(stderr).toMatch(/MCP discovery, the unauthenticated request: POST .*\/mcp without a token answered 200/);
  });

  it('an MCP URL that does not answer exits 3', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/mcp`;
    const { code, stderr } = await cli('run', '--target', url, '--profile', 'mcp-2025-11-25', '--report', '/tmp/x');
    expect(code).toBe(3);
    expect(stderr).toMatch(/the target is unreachable/);
  });

  it('list --profile mcp shows the newest revision', async () => {
    const { code, stdout } = await cli('list', '--profile', 'mcp', '--only', 'cimd.*');
    expect(code).toBe(0);
    expect(stdout).toMatch(/4 scenarios \(profile mcp-2026-07-28\)/);
  });
});

describe('loadMcpTarget', () => {
  it('names discoveryUrl where the run would not look (OIDC Discovery with path insertion)', async () => {
    let at = '';
    const stub = createServer((req, res) => {
      req.resume();
      const routes: Record<string, [number, string]> = {
        'POST /mcp': [401, ''],
        'GET /.well-known/oauth-protected-resource/mcp': [200, JSON.stringify({ authorization_servers: [`${at}/t1`] })],
        'GET /.well-known/openid-configuration/t1': [200, JSON.stringify({ issuer: `${at}/t1` })],
      };
      const [status, body] = routes[`${req.method} ${req.url}`] ?? [404, ''];
      res.writeHead(status, { 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="mcp"' });
      res.end(body);
    });
    await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
    const address = stub.address();
    at = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    try {
      const loaded = await loadMcpTarget(`${at}/mcp`, { profile: 'mcp-2026-07-28' });
      expect(loaded.config.issuer).toBe(`${at}/t1`);
      expect(loaded.config.discoveryUrl).toBe(`${at}/.well-known/openid-configuration/t1`);
      expect(loaded.config.user).toBeUndefined();
    } finally {
      await new Promise<void>((resolve) => stub.close(() => resolve()));
    }
  });
});
