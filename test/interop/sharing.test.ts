/**
 * A shortcut never changes a verdict, on every IdP of the interop matrix (interop/matrix.ts IDPS):
 * - the whole catalog with the run's shared signed-in session and without it (`login.shareSession: false`: every walk
 *   signs in afresh) gives every scenario the same status;
 * - a selection gives a scenario the status it has in the whole catalog: every scenario alone (`--only <id>`) against
 *   the cheapest IdP (oidc-provider, in this process), and the refresh and race scenarios together against
 *   django-oauth-toolkit (whose refresh tokens are only seen once a code flow ran, `--only 'refresh.*' 'race.*'`).
 * Each run starts the IdP afresh, so what one run left behind (a remembered consent) cannot reach the next.
 * A scenario whose expectations record other statuses for timing (`also`: a race the IdP loses only sometimes) counts
 * as the same when both runs' statuses are among those. An IdP that cannot run here is skipped with the reason.
 * Slow: two whole catalogs per IdP, and about a hundred short runs.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Report, Status } from '../../harness/results.ts';
import { IDPS, type Expectations, allows, loadIdp, readExpectations, runIdp } from '../../interop/matrix.ts';
import type { InteropIdp } from '../../interop/idp.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';

/** Install, then two whole catalogs (each with its own start and stop): many minutes on a loaded machine. */
const RUNS_TIMEOUT_MS = 45 * 60_000;
/** Every scenario of the catalog alone, each against a fresh start of the IdP. */
const ONLY_TIMEOUT_MS = 45 * 60_000;
/** The IdP whose every scenario is also run alone: it runs in this process and starts in well under a second. */
const ONLY_EACH = 'oidc-provider';
/** Selections against one IdP that a whole run must agree with: scenarios whose premise another scenario shows. */
const SELECTIONS: Record<string, string[][]> = {
  'django-oauth-toolkit': [['refresh.*', 'race.*']],
};

const statuses = (report: Report): Map<string, Status> => new Map(report.results.map((r) => [r.id, r.status]));

/** "id: a in the first, b in the second (what each said)" for every scenario whose status differs. */
function differences(
  first: Report,
  second: Report,
  expectations: Expectations | undefined,
  names: [string, string],
): string[] {
  const theirs = new Map(second.results.map((r) => [r.id, r]));
  const out: string[] = [];
  for (const mine of first.results) {
    const other = theirs.get(mine.id);
    if (!other) continue;
    if (mine.status === other.status) continue;
    const e = expectations?.scenarios[mine.id];
    if (e?.also && allows(e, mine.status) && allows(e, other.status)) continue;
    const said = (r: typeof mine) => (r.status === 'skipped' ? r.skipReason : r.message) ?? '';
    out.push(
      `${mine.id}: ${mine.status} ${names[0]} (${said(mine).slice(0, 200)}), ${other.status} ${names[1]} ` +
        `(${said(other).slice(0, 200)})`,
    );
  }
  return out;
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
    let shared: Report | undefined;
    let fresh: Report | undefined;
    let expectations: Expectations | undefined;

    beforeAll(async () => {
      ({ idp, unavailable } = await available(name));
      if (!idp) return;
      expectations = await readExpectations(name);
      shared = (await runIdp(idp)).report;
      fresh = (await runIdp(idp, { shareSession: false })).report;
    }, RUNS_TIMEOUT_MS);

    it('gives every scenario the same status with the shared session and without it', (ctx) => {
      if (unavailable) ctx.skip(unavailable);
      expect(fresh!.results.map((r) => r.id).sort()).toEqual(BUILT_IN_SCENARIOS.map((s) => s.id).sort());
      expect(differences(shared!, fresh!, expectations, ['with sharing', 'without'])).toEqual([]);
    });

    for (const only of SELECTIONS[name] ?? []) {
      it(
        `gives --only ${only.join(' ')} the statuses of the whole run`,
        async (ctx) => {
          if (unavailable) ctx.skip(unavailable);
          const selected = (await runIdp(idp!, { only })).report;
          expect(selected.results.length).toBeGreaterThan(0);
          expect(differences(selected, shared!, expectations, ['selected', 'in the whole run'])).toEqual([]);
        },
        RUNS_TIMEOUT_MS,
      );
    }

    if (name === ONLY_EACH) {
      it(
        'gives every scenario run alone (--only <id>) the status it has in the whole run',
        async (ctx) => {
          if (unavailable) ctx.skip(unavailable);
          const whole = statuses(shared!);
          const alone: Report['results'] = [];
          for (const s of BUILT_IN_SCENARIOS) {
            const { report } = await runIdp(idp!, { only: [s.id] });
            expect(report.results.map((r) => r.id)).toEqual([s.id]);
            alone.push(report.results[0]!);
          }
          expect(alone.length).toBe(whole.size);
          expect(
            differences({ ...shared!, results: alone }, shared!, expectations, ['alone', 'in the whole run']),
          ).toEqual([]);
        },
        ONLY_TIMEOUT_MS,
      );
    }
  });
}
