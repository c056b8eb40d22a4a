/**
 * From an MCP server's URL to a report, end to end, with the embedded reference as the authorization server behind a
 * stub MCP server (401 with a Bearer challenge, RFC 9728 metadata naming the reference). The reference's own
 * `serve --mcp` (its /mcp endpoint, CIMD) is not used here: the cimd.* scenarios skip for lack of
 * client_id_metadata_document_supported, which this test checks as their premise.
 */
import { type Server, createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReferenceServer, planConformance, runPlanned } from '../../../index.ts';
import { validateConfig } from '../../../harness/config/load.ts';
import type { ReferenceServer } from '../../../reference/index.ts';
import { loadMcpTarget, profileOption, userOption } from '../../../cli/mcp-target.ts';
import { UsageError } from '../../../cli/command.ts';

let reference: ReferenceServer;
let mcp: Server;
let mcpUrl = '';

beforeAll(async () => {
  reference = createReferenceServer({ registration: true });
  await reference.listen(0, '127.0.0.1');
  const issuer = reference.issuer;
  mcp = createServer((req, res) => {
    req.resume();
    if (req.url === '/.well-known/oauth-protected-resource/mcp') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ resource: mcpUrl, authorization_servers: [issuer] }));
      return;
    }
    const origin = new URL(mcpUrl).origin;
    res.writeHead(401, {
      'www-authenticate': `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
    });
    res.end();
  });
  await new Promise<void>((resolve) => mcp.listen(0, '127.0.0.1', resolve));
  const address = mcp.address();
  mcpUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/mcp`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => mcp.close(() => resolve()));
  await reference.close();
});

describe('--profile and --user', () => {
  it('mcp is the newest revision; the revisions and the other profiles by name', () => {
    expect(profileOption('mcp')).toBe('mcp-2026-07-28');
    expect(profileOption('mcp-2025-06-18')).toBe('mcp-2025-06-18');
    expect(profileOption('spec')).toBe('spec');
    expect(profileOption(undefined)).toBeUndefined();
    expect(() => profileOption('mcp-2024')).toThrow(UsageError);
  });

  it('--user NAME:PASSWORD splits at the first colon', () => {
    expect(userOption('alice:pa:ss')).toEqual({ username: 'alice', password: 'pa:ss' });
    expect(() => userOption('alice')).toThrow(/NAME:PASSWORD/);
    expect(() => userOption(':pw')).toThrow(UsageError);
  });
});

describe('run --target <MCP server URL> --profile mcp', () => {
  it('builds the config in memory, judges mcp.metadata-discovery; the cimd scenarios skip, saying why', async () => {
    const user = reference.context.users[0];
    if (!user) throw new Error('the reference has no user');
    const loaded = await loadMcpTarget(mcpUrl, {
      profile: 'mcp-2026-07-28',
      user: { username: user.username, password: user.password },
    });
    expect(loaded.config).toMatchObject({
      issuer: reference.issuer,
      resource: { url: mcpUrl, metadataUrl: `${new URL(mcpUrl).origin}/.well-known/oauth-protected-resource/mcp` },
      registration: { enabled: true },
      user: { username: user.username },
    });
    expect(loaded.line).toContain('from the challenge');
    const lines: string[] = [];
    const plan = planConformance(loaded, {
      profile: 'mcp-2026-07-28',
      only: ['mcp.*', 'cimd.*'],
      seed: 3,
      notices: [loaded.line],
      registrationLog: (line) => lines.push(line),
    });
    const report = await runPlanned(plan);
    const byId = Object.fromEntries(report.results.map((r) => [r.id, r]));
    expect(report.profile).toBe('mcp-2026-07-28');
    expect(byId['mcp.metadata-discovery']?.status).toBe('passed');
    for (const id of ['cimd.code-flow', 'cimd.client-id-matches-url', 'cimd.redirect-uri-listed', 'cimd.bad-document'])
      expect(byId[id]?.skipReason ?? '', id).toMatch(/client_id_metadata_document_supported/);
    expect(report.notices).toContain(loaded.line);
    // Registration implied by the MCP profile: the public role registered by RFC 7591 (no CIMD advertised).
    expect(lines.join('\n')).toMatch(/registration: registered .*public/);
  }, 60_000); // a handful of scenarios with sign-ins: generous on a loaded machine
});

describe('mcp.metadata-discovery against a stub authorization server', () => {
  it('fails when the first metadata MCP clients probe is served as text/plain (as-metadata-text-plain)', async () => {
    let origin = '';
    const meta = () =>
      JSON.stringify({
        issuer: origin,
        authorization_endpoint: `${origin}/authorize`,
        token_endpoint: `${origin}/token`,
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
      });
    const as = createServer((req, res) => {
      req.resume();
      if (req.url === '/.well-known/oauth-authorization-server') {
        res.writeHead(200, { 'content-type': 'text/plain' }).end(meta());
      } else if (req.url === '/.well-known/openid-configuration') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(meta());
      } else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => as.listen(0, '127.0.0.1', resolve));
    const address = as.address();
    origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    try {
      const config = { issuer: origin, resource: { url: `${origin}/mcp` } };
      const statusUnder = async (profile: 'spec' | 'mcp-2026-07-28') => {
        const plan = planConformance(
          { config: validateConfig(config), source: 'object' },
          { profile, only: ['mcp.metadata-discovery'], seed: 1 },
        );
        const [result] = (await runPlanned(plan)).results;
        return result;
      };
      for (const profile of ['spec', 'mcp-2026-07-28'] as const) {
        const result = await statusUnder(profile);
        expect(result?.status, profile).toBe('failed');
        expect(result?.message).toMatch(/served as "text\/plain", not application\/json/);
      }
    } finally {
      await new Promise<void>((resolve) => as.close(() => resolve()));
    }
  }, 30_000);
});
