/** `idp-conformance serve --mcp --cimd-allow-loopback` as a user starts it: the banner, the target config, /mcp. */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnCli, waitFor } from '../support/spawn-cli.ts';

describe('serve --mcp', () => {
  it('names the MCP endpoint, writes the resource section and answers /mcp with the challenge', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'idpc-serve-mcp-'));
    const out = join(dir, 't.json');
    const proc = spawnCli(['serve', '--port', '0', '--mcp', '--cimd-allow-loopback', '--target-out', out]);
    try {
      await waitFor(proc.output, 'Press Ctrl+C to stop.');
      const issuer = /issuer\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(proc.output())?.[1];
      expect(proc.output()).toContain(`mcp        ${issuer}/mcp`);
      const target = JSON.parse(await readFile(out, 'utf8'));
      expect(target.resource).toEqual({ url: `${issuer}/mcp`, otherResource: 'https://api.example.test' });
      const response = await fetch(`${issuer}/mcp`, { method: 'POST' });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toContain(
        `resource_metadata="${issuer}/.well-known/oauth-protected-resource/mcp"`,
      );
    } finally {
      proc.child.kill('SIGTERM');
      await proc.exited;
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000); // spawns the CLI: generous on a loaded machine

  it('--help documents both flags, the loopback one as a test switch', async () => {
    const help = spawnCli(['serve', '--help']);
    expect(await help.exited).toBe(0);
    expect(help.output()).toContain('--mcp');
    expect(help.output()).toMatch(/--cimd-allow-loopback\s+a TEST switch/);
  }, 60_000); // spawns the CLI
});
