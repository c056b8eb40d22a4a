/**
 * The planted-flaw matrix (DESIGN §6): proves the catalog's verdicts.
 * 1. Against the clean reference every scenario passes (a skip only with a written reason).
 * 2. For every flaw of reference/flaws.ts, each scenario that claims it fails with that flaw on,
 *    and every flaw is claimed by at least one scenario.
 * (3., the run against an independent IdP, is in oidc-provider.test.ts.)
 *
 * MATRIX_ONLY='code.*,pkce.*' narrows the run to some scenario ids while writing scenarios.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedReference, type EmbeddedReference } from '../../cli/embedded.ts';
import { idMatcher, patternList } from '../../harness/glob.ts';
import type { Report, ScenarioResult } from '../../harness/results.ts';
import type { Scenario } from '../../harness/scenario.ts';
import { runConformance } from '../../index.ts';
import { FLAW_NAMES, type FlawName, type ReferenceOptions } from '../../reference/index.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';
import { FLAW_OPTIONS, OPT_IN } from './opt-in.ts';

/** Browser scenarios are proven in their own test, with Chromium. */
const CATALOG = BUILT_IN_SCENARIOS.filter((s) => s.area !== 'browser');
const only = process.env.MATRIX_ONLY ? idMatcher(patternList([process.env.MATRIX_ONLY])) : () => true;
const IN_SCOPE = CATALOG.filter((s) => only(s.id));

/** Areas that need the opt-in legacy client (password and implicit grants) on the reference. */
const LEGACY_AREAS = new Set(['implicit', 'password']);
const needsLegacy = (scenarios: readonly Scenario[]) => scenarios.some((s) => LEGACY_AREAS.has(s.area));

async function runAgainst(options: ReferenceOptions, scenarios: readonly Scenario[]): Promise<Report> {
  const ref: EmbeddedReference = await startEmbeddedReference(options);
  try {
    // A generous per-scenario limit: on a loaded machine a property scenario waits its turn a while.
    return await runConformance({ target: ref.target, scenarios, seed: 20261122, concurrency: 4, scenarioTimeoutMs: 90_000 });
  } finally {
    await ref.server.close();
  }
}

const show = (r: ScenarioResult) => `${r.id}: ${r.status}${r.message ? ` — ${r.message}` : ''}${r.skipReason ? ` — ${r.skipReason}` : ''}`;

describe('the clean reference', () => {
  let report: Report;
  let legacyReport: Report;
  beforeAll(async () => {
    report = await runAgainst({}, IN_SCOPE);
    const legacy = IN_SCOPE.filter((s) => LEGACY_AREAS.has(s.area));
    legacyReport = await runAgainst({ legacyClient: true }, legacy);
  }, 300_000); // the whole catalog: generous on a loaded machine

  it('passes every scenario; a skip only with a written reason', () => {
    const bad = report.results.filter((r) => r.status !== 'passed' && !(r.status === 'skipped' && r.skipReason));
    expect(bad.map(show)).toEqual([]);
    expect(report.results).toHaveLength(IN_SCOPE.length);
  });

  it('skips only the legacy scenarios and the opt-in ones (opt-in.ts), whose features the default reference does not offer or require', () => {
    const skipped = report.results.filter((r) => r.status === 'skipped');
    expect(skipped.filter((r) => !LEGACY_AREAS.has(r.area) && !Object.hasOwn(OPT_IN, r.id)).map(show)).toEqual([]);
  });

  it('with the legacy client seeded, the legacy scenarios apply: no failure, and offering them is a warning', () => {
    for (const r of legacyReport.results) {
      expect(['passed', 'warning'], show(r)).toContain(r.status);
    }
    const deprecated = legacyReport.results.find((r) => r.id === 'implicit.deprecated');
    if (deprecated) expect(deprecated.status).toBe('warning');
  });
});

describe('the planted flaws', () => {
  const claimants = (flaw: FlawName) => CATALOG.filter((s) => s.catches?.includes(flaw));

  it('every flaw is claimed by at least one scenario, and every claim names a known flaw', () => {
    if (process.env.MATRIX_ONLY) return; // a narrowed run proves only its own scenarios
    expect(FLAW_NAMES.filter((flaw) => claimants(flaw).length === 0 && !BROWSER_ONLY_FLAWS.has(flaw))).toEqual([]);
    const unknown = CATALOG.flatMap((s) => (s.catches ?? []).filter((f) => !(FLAW_NAMES as readonly string[]).includes(f)).map((f) => `${s.id}: ${f}`));
    expect(unknown).toEqual([]);
  });

  const flaws = FLAW_NAMES.filter((flaw) => claimants(flaw).some((s) => IN_SCOPE.includes(s)));
  it.each(flaws)('%s: each scenario that claims it fails', async (flaw) => {
    const scenarios = claimants(flaw).filter((s) => IN_SCOPE.includes(s));
    const report = await runAgainst({ ...FLAW_OPTIONS[flaw], flaws: [flaw], legacyClient: needsLegacy(scenarios) }, scenarios);
    for (const r of report.results) {
      expect(['failed', 'warning'], show(r)).toContain(r.status);
      expect(r.message, `${r.id} says what the target did`).toBeTruthy();
    }
    expect(report.results).toHaveLength(scenarios.length);
  }, 60_000);
});

/** Flaws whose only claimants are browser scenarios (proven in the browser test). */
const BROWSER_ONLY_FLAWS: ReadonlySet<string> = new Set<string>([]);
