/**
 * End to end against the reference as an MCP authorization server and protected resource (`serve --mcp
 * --registration --cimd-allow-loopback`): from its /mcp URL alone, as `run --target URL --profile mcp --user` does,
 * every scenario of this part passes, the public client is a CIMD client, and each planted flaw is caught by its
 * scenario alone.
 */
import { describe, expect, it } from 'vitest';
import { loadMcpTarget } from '../../../cli/mcp-target.ts';
import type { FlawName } from '../../../protocol/flaw-names.ts';
import { createReferenceServer, planConformance, runPlanned } from '../../../index.ts';

const ALL = [
  'mcp.metadata-discovery',
  'cimd.code-flow',
  'cimd.client-id-matches-url',
  'cimd.redirect-uri-listed',
  'cimd.bad-document',
];

async function statuses(flaws: FlawName[]): Promise<{ byId: Record<string, string>; log: string[] }> {
  // A variable, not a literal: the options of `serve --mcp` (reference/options.ts).
  const options = { flaws, mcp: true, registration: true, cimdAllowLoopback: true };
  const server = createReferenceServer(options);
  await server.listen(0, '127.0.0.1');
  try {
    const user = server.context.users[0];
    if (!user) throw new Error('the reference has no user');
    const loaded = await loadMcpTarget(`${server.issuer}/mcp`, {
      profile: 'mcp-2026-07-28',
      user: { username: user.username, password: user.password },
    });
    const log: string[] = [];
    const plan = planConformance(loaded, {
      profile: 'mcp-2026-07-28',
      only: ['mcp.metadata-discovery', 'cimd.*'],
      seed: 9,
      registrationLog: (line) => log.push(line),
    });
    const report = await runPlanned(plan);
    return { byId: Object.fromEntries(report.results.map((r) => [r.id, r.status])), log };
  } finally {
    await server.close();
  }
}

describe('run --target <reference>/mcp --profile mcp (serve --mcp)', () => {
  it('registers the public client by CIMD and passes every scenario of the MCP discovery and CIMD', async () => {
    const { byId, log } = await statuses([]);
    expect(byId).toEqual(Object.fromEntries(ALL.map((id) => [id, 'passed'])));
    expect(log.join('\n')).toMatch(/public identified by Client ID Metadata Documents/);
  }, 60_000); // a few sign-ins: generous on a loaded machine

  it.each([
    ['as-metadata-text-plain', 'mcp.metadata-discovery'],
    ['cimd-client-id-unchecked', 'cimd.client-id-matches-url'],
    ['cimd-redirect-unchecked', 'cimd.redirect-uri-listed'],
    ['cimd-bad-document-accepted', 'cimd.bad-document'],
  ] as const)(
    '%s fails %s and changes no other status',
    async (flaw, claimant) => {
      const { byId } = await statuses([flaw]);
      expect(byId).toEqual(Object.fromEntries(ALL.map((id) => [id, id === claimant ? 'failed' : 'passed'])));
    },
    60_000,
  );
});
