/**
 * End to end against the reference as an MCP authorization server and protected resource (`serve --mcp
 * --registration --cimd-allow-loopback`), from its /mcp URL alone, as `run --target URL --profile mcp --user` does
 * (no config file): the clients are registered (the public one by CIMD), the whole catalog runs with no failure and
 * no error, every scenario of issue 44 is judged and passes, and each MCP flaw is caught by its scenario alone.
 */
import { describe, expect, it } from 'vitest';
import { loadMcpTarget } from '../../../cli/mcp-target.ts';
import type { FlawName } from '../../../protocol/flaw-names.ts';
import type { ProfileName } from '../../../harness/model/results.ts';
import { createReferenceServer, planConformance, runPlanned } from '../../../index.ts';
import { FLAW_PROFILES, MCP_CLAIMS } from '../../matrix/opt-in.ts';

/** The scenarios of issue 44. */
const MCP_SCENARIOS = Object.keys(MCP_CLAIMS);

interface McpRun {
  byId: Record<string, string>;
  log: string[];
}

async function runFromUrl(flaws: FlawName[], profile: ProfileName, only?: string[]): Promise<McpRun> {
  // A variable, not a literal: the options of `serve --mcp` (reference/options.ts).
  const options = { flaws, mcp: true, registration: true, cimdAllowLoopback: true };
  const server = createReferenceServer(options);
  await server.listen(0, '127.0.0.1');
  try {
    const user = server.context.users[0];
    if (!user) throw new Error('the reference has no user');
    const loaded = await loadMcpTarget(`${server.issuer}/mcp`, {
      profile,
      user: { username: user.username, password: user.password },
    });
    const log: string[] = [];
    const plan = planConformance(loaded, {
      profile,
      ...(only ? { only } : {}),
      seed: 9,
      registrationLog: (line) => log.push(line),
    });
    const report = await runPlanned(plan);
    return { byId: Object.fromEntries(report.results.map((r) => [r.id, r.status])), log };
  } finally {
    await server.close();
  }
}

const pick = (byId: Record<string, string>, ids: readonly string[]) =>
  Object.fromEntries(ids.map((id) => [id, byId[id]]));

describe('run --target <reference>/mcp --profile mcp --user (serve --mcp --registration --cimd-allow-loopback)', () => {
  it('registers its clients, runs the whole catalog with no failure or error, passes every MCP scenario', async () => {
    const { byId, log } = await runFromUrl([], 'mcp-2026-07-28');
    expect(log.join('\n')).toMatch(/public identified by Client ID Metadata Documents/);
    expect(log.join('\n')).toMatch(/registered confidential, /);
    expect(pick(byId, MCP_SCENARIOS)).toEqual(Object.fromEntries(MCP_SCENARIOS.map((id) => [id, 'passed'])));
    expect(Object.entries(byId).filter(([, status]) => status === 'failed' || status === 'error')).toEqual([]);
  }, 300_000); // the whole catalog: generous on a loaded machine

  // Each flaw in the profile of the revision whose sentence it breaks (test/matrix/opt-in.ts FLAW_PROFILES): the
  // challenge without resource_metadata breaks only 2025-06-18's MUST (later revisions allow the well-known URL), and
  // under 2025-06-18 there is no CIMD, so the cimd scenarios skip there.
  it.each(
    Object.entries(MCP_CLAIMS).flatMap(([claimant, flaw]) =>
      flaw === null ? [] : [[flaw, claimant, FLAW_PROFILES[flaw] ?? 'mcp-2026-07-28'] as const],
    ),
  )(
    '%s is caught by %s (profile %s), and no other MCP scenario moves',
    async (flaw, claimant, profile) => {
      const clean = await runFromUrl([], profile, MCP_SCENARIOS);
      const flawed = await runFromUrl([flaw], profile, MCP_SCENARIOS);
      expect(clean.byId[claimant]).toBe('passed');
      expect(['failed', 'warning']).toContain(flawed.byId[claimant]);
      expect(flawed.byId).toEqual({ ...clean.byId, [claimant]: flawed.byId[claimant] });
    },
    120_000,
  );
});
