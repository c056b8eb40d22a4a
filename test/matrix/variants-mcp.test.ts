/**
 * The variants (docs/fixture.md, "Variants") and the MCP scenarios of issue 44: on the reference as an MCP
 * authorization server and protected resource (`serve --mcp --registration --cimd-allow-loopback`), judged by the
 * newest MCP revision, every variant leaves every MCP scenario's status as on the plain MCP reference, and under every
 * variant each MCP flaw is still caught by its claimant (in the profile of the revision whose sentence it breaks).
 * variants.test.ts does the same for the whole catalog on the default reference.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../harness/model/results.ts';
import { type FlawName, VARIANT_NAMES } from '../../reference/index.ts';
import { CATALOG } from './flaw-matrix.ts';
import { FLAW_PROFILES, MCP_CLAIMS, MCP_OPTIONS } from './opt-in.ts';
import { runCatalog, show, statusChanges } from './variant-matrix.ts';

const SEED = 20261128;

const MCP_SCENARIOS = CATALOG.filter((s) => s.id in MCP_CLAIMS);

describe('the variants of the MCP reference: no MCP scenario moves, every MCP flaw still caught', () => {
  let plain: Report;
  beforeAll(async () => {
    plain = await runCatalog({ seed: SEED, scenarios: MCP_SCENARIOS, profile: 'mcp-2026-07-28' }, MCP_OPTIONS);
  }, 300_000);

  it('the plain MCP reference passes every MCP scenario', () => {
    expect(MCP_SCENARIOS).toHaveLength(11);
    expect(plain.results.filter((r) => r.status !== 'passed').map(show)).toEqual([]);
  });

  it.concurrent.each(VARIANT_NAMES)(
    '%s: every MCP scenario keeps its status, and each MCP flaw is caught by its claimant',
    async (variant) => {
      const varied = await runCatalog(
        { seed: SEED, scenarios: MCP_SCENARIOS, profile: 'mcp-2026-07-28', variants: [variant] },
        MCP_OPTIONS,
      );
      expect(statusChanges(plain, varied)).toEqual([]);
      const missed: string[] = [];
      for (const [id, flaw] of Object.entries(MCP_CLAIMS)) {
        if (flaw === null) continue;
        const scenario = MCP_SCENARIOS.filter((s) => s.id === id);
        const report = await runCatalog(
          { seed: SEED, scenarios: scenario, flaws: [flaw], variants: [variant], ...profileOf(flaw) },
          MCP_OPTIONS,
        );
        const r = report.results[0];
        if (!r || (r.status !== 'failed' && r.status !== 'warning')) missed.push(`${flaw}: ${r ? show(r) : id}`);
      }
      expect(missed).toEqual([]);
    },
    900_000,
  );
});

function profileOf(flaw: FlawName): { profile: NonNullable<(typeof FLAW_PROFILES)[FlawName]> } {
  return { profile: FLAW_PROFILES[flaw] ?? 'mcp-2026-07-28' };
}
