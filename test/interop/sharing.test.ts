/**
 * A shortcut never changes a verdict, on every IdP of the interop matrix (interop/matrix.ts IDPS):
 * - the whole catalog without the run's shared signed-in session (`login.shareSession: false`: every walk signs in
 *   afresh) gives every scenario the status its expectations record; interop.test.ts holds the run with sharing (the
 *   default) to the same expectations, so the two runs give every scenario the same status without this file running
 *   the shared catalog a second time (a whole Glewlwyd catalog takes minutes: most of its walks are in Chromium);
 * - a selection gives a scenario the status it has in the whole catalog: every scenario alone (`--only <id>`) against
 *   the cheapest IdP (oidc-provider, in this process), and the refresh and race scenarios together against
 *   django-oauth-toolkit (whose refresh tokens are only seen once a code flow ran, `--only 'refresh.*' 'race.*'`).
 * Each run starts the IdP afresh, so what one run left behind (a remembered consent) cannot reach the next.
 * A scenario whose expectations record other statuses for timing (`also`: a race the IdP loses only sometimes) may
 * take any of them. An IdP that cannot run here is skipped with the reason.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../harness/model/results.ts';
import {
  IDPS,
  type Expectations,
  compare,
  describeDifference,
  loadIdp,
  readExpectations,
  runIdp,
} from '../../interop/matrix.ts';
import type { InteropIdp } from '../../interop/idp.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';

/** Install, then a whole catalog (with its own start and stop): minutes on a loaded machine. */
const RUNS_TIMEOUT_MS = 45 * 60_000;
/** Every scenario of the catalog alone, each against a fresh start of the IdP. */
const ONLY_TIMEOUT_MS = 45 * 60_000;
/** The IdP whose every scenario is also run alone: it runs in this process and starts in well under a second. */
const ONLY_EACH = 'oidc-provider';
/** Selections against one IdP that a whole run must agree with: scenarios whose premise another scenario shows. */
const SELECTIONS: Record<string, string[][]> = {
  'django-oauth-toolkit': [['refresh.*', 'race.*']],
};

/**
 * "id: expected a, got b (what the run said)" for every scenario of `report` whose status the expectations do not
 * allow (the whole catalog's statuses; `also` for a timing-dependent one). A selection is compared on its own ids.
 */
function differences(report: Report, expectations: Expectations, how: string): string[] {
  const ids = new Set(report.results.map((r) => r.id));
  const mine = {
    ...expectations,
    scenarios: Object.fromEntries(Object.entries(expectations.scenarios).filter(([id]) => ids.has(id))),
  };
  return compare(mine, report).map((d) => `${how}: ${describeDifference(d)}`);
}

/** The IdP's module, installed; or why it cannot run here. */
async function available(name: string): Promise<{ idp?: InteropIdp; unavailable?: string }> {
  const idp = await loadIdp(name);
  if (!idp) return { unavailable: `no interop module for ${name} in this checkout` };
  try {
    await idp.install();
  } catch (error) {
    return { unavailable: (error as Error).message };
  }
  return { idp };
}

for (const { name } of IDPS) {
  describe(`sharing invariant: ${name}`, () => {
    let idp: InteropIdp | undefined;
    let unavailable: string | undefined;
    let fresh: Report | undefined;
    let expectations: Expectations | undefined;

    beforeAll(async () => {
      ({ idp, unavailable } = await available(name));
      if (!idp) return;
      expectations = await readExpectations(name);
      if (!expectations) return;
      fresh = (await runIdp(idp, { shareSession: false })).report;
    }, RUNS_TIMEOUT_MS);

    it('gives every scenario without the shared session the status it has with it (its expectations)', (ctx) => {
      if (unavailable) ctx.skip(unavailable);
      expect(expectations, `interop/expectations/${name}.json is missing`).toBeDefined();
      expect(fresh!.results.map((r) => r.id).sort()).toEqual(BUILT_IN_SCENARIOS.map((s) => s.id).sort());
      expect(differences(fresh!, expectations!, 'without sharing')).toEqual([]);
    });

    for (const only of SELECTIONS[name] ?? []) {
      it(
        `gives --only ${only.join(' ')} the statuses of the whole run`,
        async (ctx) => {
          if (unavailable) ctx.skip(unavailable);
          const selected = (await runIdp(idp!, { only })).report;
          expect(selected.results.length).toBeGreaterThan(0);
          expect(differences(selected, expectations!, 'selected')).toEqual([]);
        },
        RUNS_TIMEOUT_MS,
      );
    }

    if (name === ONLY_EACH) {
      it(
        'gives every scenario run alone (--only <id>) the status it has in the whole run',
        async (ctx) => {
          if (unavailable) ctx.skip(unavailable);
          const alone: Report['results'] = [];
          for (const s of BUILT_IN_SCENARIOS) {
            const { report } = await runIdp(idp!, { only: [s.id] });
            expect(report.results.map((r) => r.id)).toEqual([s.id]);
            alone.push(report.results[0]!);
          }
          expect(alone.length).toBe(BUILT_IN_SCENARIOS.length);
          expect(differences({ ...fresh!, results: alone }, expectations!, 'alone')).toEqual([]);
        },
        ONLY_TIMEOUT_MS,
      );
    }
  });
}
