/**
 * `npm run bench -- --only drivers`: the whole catalog's wall time with each login driver (login.driver "form", "auto"
 * and "browser") against the embedded reference and every interop IdP whose module is in interop/, and the walks the
 * auto driver made in Chromium. Each target runs in rounds; a round runs the three drivers one after the other, in an
 * order that turns by one each round, each run against a freshly started IdP (its start is not timed). A target's
 * figures are the medians of its rounds; its ratios are the medians of the ratios within each round, which a machine
 * shared with other work disturbs far less than times taken minutes apart.
 *
 * Targets (issue 28): auto ≤ 1.25× form where every sign-in page is a plain HTML form, and auto ≤ 0.5× browser where
 * pages need scripts (a deny that works by script, a sign-in rendered by script).
 */
import { loadavg } from 'node:os';
import { startEmbeddedReference } from '../cli/embedded.ts';
import type { Report, Summary } from '../harness/model/results.ts';
import { runConformance } from '../index.ts';
import type { RunningIdp } from '../interop/idp.ts';
import {
  type DriverName,
  IDPS,
  loadedTarget,
  loadIdp,
  runCatalogOn,
  withDriver,
  withRunningIdp,
} from '../interop/matrix.ts';
import { messageOf } from '../interop/support.ts';

export const DRIVERS: readonly DriverName[] = ['form', 'auto', 'browser'];

/** What a target's sign-in pages are, which decides the ratio it is held to. */
export type PageKind = 'plain forms' | 'script pages';

/** The targets in the order the bench runs them: the embedded reference, then the interop IdPs (interop/matrix.ts). */
export const DRIVER_TARGETS: readonly { name: string; pages: PageKind }[] = [
  { name: 'reference', pages: 'plain forms' },
  ...IDPS.map((i): { name: string; pages: PageKind } => ({
    name: i.name,
    pages: i.name === 'lemonldap-ng' || i.name === 'glewlwyd' ? 'script pages' : 'plain forms',
  })),
];

/** auto / form where every page is a plain form. */
export const AUTO_FORM_TARGET = 1.25;
/** auto / browser where pages need scripts. */
export const AUTO_BROWSER_TARGET = 0.5;

export interface DriverBenchOptions {
  targets: string[];
  rounds: number;
}

/** `--targets a,b` and `--rounds N` (default: every target, 3 rounds; `quick`: 1 round). */
export function driverBenchOptions(values: { targets?: string; rounds?: string; quick?: boolean }): DriverBenchOptions {
  const known = DRIVER_TARGETS.map((t) => t.name);
  const targets = values.targets
    ? values.targets
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : known;
  const unknown = targets.filter((t) => !known.includes(t));
  if (unknown.length) throw new Error(`--targets: unknown ${unknown.join(', ')}; choose from ${known.join(', ')}`);
  if (!targets.length) throw new Error(`--targets: name at least one of ${known.join(', ')}`);
  let rounds = values.quick ? 1 : 3;
  if (values.rounds !== undefined) {
    rounds = Number(values.rounds);
    if (!Number.isInteger(rounds) || rounds < 1)
      throw new Error(`--rounds must be a whole number of at least 1, not "${values.rounds}"`);
  }
  return { targets, rounds };
}

/** The drivers of round `round` (0-based): the order turns by one each round. */
export function roundOrder(round: number): DriverName[] {
  const n = DRIVERS.length;
  return DRIVERS.map((_, i) => DRIVERS[(i + round) % n]!);
}

/** The walks a run made: those of its login driver, those that used Chromium by reason, the browser scenarios'. */
export interface WalkCount {
  /** Every walk of the run. */
  total: number;
  /** Walks of the run's login driver that used Chromium (all of the browser driver's; auto's that went on in it). */
  inBrowser: number;
  /** Why each of those used Chromium (a remembered page under its first reason) → how many. */
  reasons: Record<string, number>;
  /** Walks of the browser scenarios (browser.*), which always use Chromium, whatever the driver. */
  browserScenarios: number;
}

export interface DriverRun {
  driver: DriverName;
  round: number;
  wallMs: number;
  /** The 1-minute load average when the run started and ended: other work on the machine skews the time. */
  load: { start: number; end: number };
  summary: Summary;
  errors: { id: string; message: string }[];
  /** The slowest scenarios: where the time went. */
  slowest: { id: string; durationMs: number }[];
  walks: WalkCount;
}

export interface TargetBench {
  name: string;
  pages: PageKind;
  /** Why the target was not measured (no module, packages missing), else undefined. */
  skipped?: string;
  runs: DriverRun[];
}

export interface DriverBench {
  rounds: number;
  targets: TargetBench[];
}

/** The walks of a report run with `driver`: see WalkCount. */
export function countWalks(report: Pick<Report, 'results'>, driver: DriverName): WalkCount {
  const walks = report.results.flatMap((r) => r.walks ?? []);
  const reasons: Record<string, number> = {};
  let inBrowser = 0;
  let browserScenarios = 0;
  for (const w of walks) {
    if (w.driver !== driver) {
      if (w.driver === 'browser') browserScenarios++;
      continue;
    }
    if (!w.used.includes('browser')) continue;
    inBrowser++;
    const why =
      w.driver === 'browser'
        ? 'the browser driver'
        : (w.switched?.reason ?? 'unknown').replace(/^as an earlier walk on this page: /, '');
    reasons[why] = (reasons[why] ?? 0) + 1;
  }
  return { total: walks.length, inBrowser, reasons, browserScenarios };
}

export function median(xs: readonly number[]): number {
  if (!xs.length) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The ratio a / b within each round where both ran. */
export function roundRatios(runs: readonly DriverRun[], a: DriverName, b: DriverName): number[] {
  const rounds = [...new Set(runs.map((r) => r.round))];
  const out: number[] = [];
  for (const round of rounds) {
    const x = runs.find((r) => r.round === round && r.driver === a);
    const y = runs.find((r) => r.round === round && r.driver === b);
    if (x && y) out.push(x.wallMs / y.wallMs);
  }
  return out;
}

export interface TargetVerdict {
  /** The driver auto is compared with, and the most auto may take of its time. */
  versus: DriverName;
  limit: number;
  /** `auto / form ≤ 1.25` or `auto / browser ≤ 0.5`. */
  target: string;
  ratio: number;
  ratios: number[];
  met: boolean;
}

/** The target's ratio (median of the rounds') against its limit. */
export function verdict(t: TargetBench): TargetVerdict | undefined {
  if (t.skipped || !t.runs.length) return undefined;
  const versus: DriverName = t.pages === 'plain forms' ? 'form' : 'browser';
  const limit = t.pages === 'plain forms' ? AUTO_FORM_TARGET : AUTO_BROWSER_TARGET;
  const ratios = roundRatios(t.runs, 'auto', versus);
  const ratio = median(ratios);
  return { versus, limit, target: `auto / ${versus} ≤ ${limit}`, ratio, ratios, met: ratio <= limit };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Lines for the console: per target, each driver's median and rounds, auto's browser walks, the ratio judged. */
export function renderDriverBench(bench: DriverBench): string {
  const lines: string[] = [];
  for (const t of bench.targets) {
    if (t.skipped) {
      lines.push(`${t.name}: not measured — ${t.skipped}`);
      continue;
    }
    lines.push(`${t.name} (${t.pages}):`);
    for (const driver of DRIVERS) {
      const runs = t.runs.filter((r) => r.driver === driver);
      if (!runs.length) continue;
      const s = runs.at(-1)!.summary;
      const each = runs
        .map((r) => `${seconds(r.wallMs)} (load ${r.load.start.toFixed(1)}→${r.load.end.toFixed(1)})`)
        .join(', ');
      lines.push(
        `  ${driver.padEnd(7)} median ${seconds(median(runs.map((r) => r.wallMs))).padStart(7)}  rounds: ${each}; ` +
          `${s.passed}/${s.failed}/${s.warnings}/${s.skipped}/${s.errors} passed/failed/warnings/skipped/errors`,
      );
      const errors = new Map(runs.flatMap((r) => r.errors).map((e) => [e.id, e.message]));
      for (const [id, message] of errors) lines.push(`    error ${id}: ${message}`);
      const last = runs.at(-1)!.slowest;
      if (last.length) lines.push(`    slowest: ${last.map((r) => `${r.id} ${seconds(r.durationMs)}`).join(', ')}`);
    }
    const auto = t.runs.filter((r) => r.driver === 'auto');
    if (auto.length) {
      const w = auto.at(-1)!.walks;
      const reasons = Object.entries(w.reasons)
        .sort((a, b) => b[1] - a[1])
        .map(([why, n]) => `${n}: ${why}`);
      lines.push(
        `  auto's browser walks: ${w.inBrowser} of ${w.total - w.browserScenarios}` +
          `${reasons.length ? ` (${reasons.join('; ')})` : ''}; the browser scenarios' ${w.browserScenarios}`,
      );
    }
    const v = verdict(t);
    if (v) {
      const each = v.ratios.map((r) => r.toFixed(2)).join(', ');
      lines.push(
        `  ${v.met ? 'MET    ' : 'NOT MET'}  ${v.target}: ${v.ratio.toFixed(2)} (median of the rounds' ${each})`,
      );
    }
  }
  return lines.join('\n');
}

/** One catalog run with `driver` against a target started by `start` (and stopped after). */
type Starter = <T>(use: (run: (driver: DriverName) => Promise<Report>) => Promise<T>) => Promise<T>;

const REFERENCE_SEED = 1;

/** How to start a target and run the catalog against it, or why it cannot be measured here. */
async function starterFor(name: string): Promise<Starter | string> {
  if (name === 'reference') {
    return async (use) => {
      const ref = await startEmbeddedReference();
      try {
        return await use((driver) =>
          runConformance({
            target: loadedTarget(withDriver({ ...ref.target }, driver)),
            seed: REFERENCE_SEED,
          }),
        );
      } finally {
        await ref.server.close();
      }
    };
  }
  const idp = await loadIdp(name);
  if (!idp) return `no module at interop/${name}/index.ts (not merged yet?)`;
  try {
    await idp.install();
  } catch (error) {
    return messageOf(error);
  }
  return (use) =>
    withRunningIdp(idp, (running: RunningIdp) =>
      use(async (driver) => (await runCatalogOn(idp, running, { driver })).report),
    );
}

/** Every target, `rounds` rounds of the three drivers each; `step` says what runs. */
export async function driversBench(
  options: DriverBenchOptions,
  step: (text: string) => void = () => {},
): Promise<DriverBench> {
  const targets: TargetBench[] = [];
  for (const name of options.targets) {
    const pages = DRIVER_TARGETS.find((t) => t.name === name)!.pages;
    const starter = await starterFor(name);
    if (typeof starter === 'string') {
      targets.push({ name, pages, skipped: starter, runs: [] });
      step(`${name}: not measured — ${starter}`);
      continue;
    }
    const runs: DriverRun[] = [];
    for (let round = 0; round < options.rounds; round++) {
      for (const driver of roundOrder(round)) {
        // Each run against a freshly started IdP: no consent or session left from the run before.
        const run = await starter(async (catalog) => {
          const start = loadavg()[0] ?? 0;
          const started = performance.now();
          const report = await catalog(driver);
          const wallMs = performance.now() - started;
          return {
            driver,
            round,
            wallMs,
            load: { start, end: loadavg()[0] ?? 0 },
            summary: report.summary,
            errors: report.results
              .filter((r) => r.status === 'error')
              .map((r) => ({ id: r.id, message: (r.message ?? '').split('\n')[0]!.slice(0, 200) })),
            slowest: [...report.results]
              .sort((a, b) => b.durationMs - a.durationMs)
              .slice(0, 5)
              .map((r) => ({ id: r.id, durationMs: r.durationMs })),
            walks: countWalks(report, driver),
          } satisfies DriverRun;
        });
        runs.push(run);
        const own = run.walks.total - run.walks.browserScenarios;
        step(
          `${name}, round ${round + 1}/${options.rounds}, ${driver}: ${seconds(run.wallMs)} ` +
            `(load ${run.load.start.toFixed(1)} → ${run.load.end.toFixed(1)}; ` +
            `${driver}'s walks in Chromium ${run.walks.inBrowser} of ${own}, ` +
            `browser scenarios' ${run.walks.browserScenarios})`,
        );
      }
    }
    targets.push({ name, pages, runs });
  }
  return { rounds: options.rounds, targets };
}
