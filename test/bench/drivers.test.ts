/**
 * The drivers bench (`npm run bench -- --only drivers`): its options, the order of each round, the walks it counts,
 * the ratios it judges and what it prints. No timing is measured here: the runs are made up.
 */
import { describe, expect, it } from 'vitest';
import {
  DRIVER_TARGETS,
  type DriverRun,
  type TargetBench,
  countWalks,
  driverBenchOptions,
  median,
  renderDriverBench,
  roundOrder,
  verdict,
} from '../../bench/drivers.ts';
import { type BenchResults, evaluateTargets } from '../../bench/report.ts';
import type { LoginWalk, ScenarioResult } from '../../harness/model/results.ts';

const summary = { total: 3, passed: 2, failed: 0, warnings: 0, skipped: 1, errors: 0, expectedFailures: 0 };

function run(driver: DriverRun['driver'], round: number, wallMs: number, over: Partial<DriverRun> = {}): DriverRun {
  return {
    driver,
    round,
    wallMs,
    load: { start: 1.5, end: 2.25 },
    summary,
    errors: [],
    slowest: [{ id: 'redirect.exact-match', durationMs: wallMs / 2 }],
    walks: {
      total: 12,
      inBrowser: driver === 'form' ? 0 : driver === 'browser' ? 10 : 1,
      reasons: {},
      browserScenarios: 2,
    },
    ...over,
  };
}

describe('drivers bench options', () => {
  it('measures every target in 3 rounds by default, 1 with --quick', () => {
    const all = DRIVER_TARGETS.map((t) => t.name);
    expect(all.slice(0, 2)).toEqual(['reference', 'django-oauth-toolkit']);
    expect(driverBenchOptions({})).toEqual({ targets: all, rounds: 3 });
    expect(driverBenchOptions({ quick: true })).toEqual({ targets: all, rounds: 1 });
  });

  it('takes --targets as a comma list and --rounds as a whole number', () => {
    expect(driverBenchOptions({ targets: 'reference, lemonldap-ng', rounds: '5' })).toEqual({
      targets: ['reference', 'lemonldap-ng'],
      rounds: 5,
    });
  });

  it('names the known targets for an unknown one, and refuses a round count that is not a whole number', () => {
    expect(() => driverBenchOptions({ targets: 'reference,keycloak' })).toThrow(
      /--targets: unknown keycloak; choose from reference, django-oauth-toolkit/,
    );
    expect(() => driverBenchOptions({ targets: ' , ' })).toThrow(/name at least one/);
    expect(() => driverBenchOptions({ rounds: '0' })).toThrow(/--rounds must be a whole number of at least 1, not "0"/);
    expect(() => driverBenchOptions({ rounds: '2.5' })).toThrow(/not "2.5"/);
  });

  it('holds LemonLDAP::NG to auto / browser, the plain-form targets to auto / form', () => {
    const pages = Object.fromEntries(DRIVER_TARGETS.map((t) => [t.name, t.pages]));
    expect(pages).toMatchObject({
      reference: 'plain forms',
      'django-oauth-toolkit': 'plain forms',
      'oidc-provider': 'plain forms',
      'lemonldap-ng': 'script pages',
    });
  });
});

describe('drivers bench rounds', () => {
  it('turns the order of the drivers by one each round, so none always runs first', () => {
    expect(roundOrder(0)).toEqual(['form', 'auto', 'browser']);
    expect(roundOrder(1)).toEqual(['auto', 'browser', 'form']);
    expect(roundOrder(2)).toEqual(['browser', 'form', 'auto']);
    expect(roundOrder(3)).toEqual(roundOrder(0));
  });

  it('counts the walks that used Chromium by reason, a remembered page under its first reason', () => {
    const walk = (w: Partial<LoginWalk>): LoginWalk => ({
      kind: 'authorization',
      driver: 'auto',
      used: ['http'],
      ...w,
    });
    const deny = 'a control that works by script';
    const results = [
      { walks: [walk({}), walk({ used: ['http', 'browser'], switched: { url: 'u', page: 'p', reason: deny } })] },
      {
        walks: [
          walk({
            used: ['http', 'browser'],
            switched: { url: 'u', page: 'p', reason: `as an earlier walk on this page: ${deny}`, remembered: true },
          }),
        ],
      },
      { walks: [walk({ driver: 'browser', used: ['browser'] })] },
      {},
    ] as unknown as ScenarioResult[];
    // In an auto run, a walk of the browser driver is a browser scenario's.
    expect(countWalks({ results }, 'auto')).toEqual({
      total: 4,
      inBrowser: 2,
      reasons: { [deny]: 2 },
      browserScenarios: 1,
    });
    expect(countWalks({ results }, 'browser')).toEqual({
      total: 4,
      inBrowser: 1,
      reasons: { 'the browser driver': 1 },
      browserScenarios: 0,
    });
  });

  it('judges the median of the ratios within each round, not the ratio of the medians', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    const t: TargetBench = {
      name: 'reference',
      pages: 'plain forms',
      runs: [
        run('form', 0, 10_000),
        run('auto', 0, 11_000),
        run('browser', 0, 30_000),
        run('form', 1, 20_000),
        run('auto', 1, 30_000),
        run('browser', 1, 60_000),
        run('form', 2, 10_000),
        run('auto', 2, 12_000),
        run('browser', 2, 30_000),
      ],
    };
    expect(verdict(t)).toMatchObject({ versus: 'form', limit: 1.25, ratios: [1.1, 1.5, 1.2], met: true });
    expect(verdict(t)!.ratio).toBeCloseTo(1.2);
    const scripts: TargetBench = { ...t, name: 'lemonldap-ng', pages: 'script pages' };
    expect(verdict(scripts)).toMatchObject({ versus: 'browser', limit: 0.5, met: true });
    expect(verdict(scripts)!.ratio).toBeCloseTo(0.4);
    const slow = {
      ...scripts,
      runs: scripts.runs.map((r) => (r.driver === 'auto' ? { ...r, wallMs: r.wallMs * 2 } : r)),
    };
    expect(verdict(slow)).toMatchObject({ met: false });
    expect(verdict(slow)!.ratio).toBeCloseTo(0.8);
    expect(verdict({ ...t, runs: [run('auto', 0, 1), run('browser', 0, 2)] })!.ratios).toEqual([]);
    expect(verdict({ ...t, skipped: 'no module', runs: [] })).toBeUndefined();
  });
});

describe('drivers bench output', () => {
  const bench = {
    rounds: 1,
    targets: [
      {
        name: 'lemonldap-ng',
        pages: 'script pages' as const,
        runs: [
          run('form', 0, 10_000, {
            errors: [{ id: 'authorize.user-denies', message: 'needs the browser' }],
            summary: { ...summary, errors: 1 },
          }),
          run('auto', 0, 12_000, {
            walks: { total: 42, inBrowser: 2, reasons: { 'a control that works by script': 2 }, browserScenarios: 2 },
          }),
          run('browser', 0, 30_000),
        ],
      },
      { name: 'glewlwyd', pages: 'script pages' as const, skipped: 'no module at interop/glewlwyd/index.ts', runs: [] },
    ],
  };

  it("prints each driver's time and load, the errors, auto's browser walks and the verdict", () => {
    const text = renderDriverBench(bench);
    expect(text).toContain('lemonldap-ng (script pages):');
    expect(text).toMatch(/ {2}form +median +10\.0 s +rounds: 10\.0 s \(load 1\.5→2\.3\); 2\/0\/0\/1\/1 passed/);
    expect(text).toContain('    error authorize.user-denies: needs the browser');
    expect(text).toContain('    slowest: redirect.exact-match 6.0 s');
    expect(text).toContain(
      "  auto's browser walks: 2 of 40 (2: a control that works by script); the browser scenarios' 2",
    );
    expect(text).toContain("  MET      auto / browser ≤ 0.5: 0.40 (median of the rounds' 0.40)");
    expect(text).toContain('glewlwyd: not measured — no module at interop/glewlwyd/index.ts');
  });

  it('adds a target line per measured target to the bench report', () => {
    // Only the drivers section ran: no other target is judged.
    const targets = evaluateTargets({ throughput: [], drivers: bench } as unknown as Omit<BenchResults, 'targets'>);
    expect(targets).toEqual([
      {
        name: 'whole catalog with the auto login driver (lemonldap-ng, script pages)',
        target: 'auto / browser ≤ 0.5×',
        measured: '0.40× (median of 1 rounds)',
        met: true,
      },
    ]);
  });
});
