/**
 * The interop matrix: every IdP module under interop/, run through the whole catalog with the
 * library API, and compared with its expectations file (interop/expectations/<idp>.json).
 * Used by `npm run interop` (interop/run.ts), the vitest suite (test/interop/) and docs/interop.md's
 * compatibility table (interop/table.ts).
 */
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { summarize } from '../harness/run/conformance.ts';
import type { ProfileName, Report, ScenarioResult, Status } from '../harness/model/results.ts';
import { selectScenarios } from '../harness/run/selection.ts';
import { z } from 'zod';
import { BUILT_IN_SCENARIOS, type LoadedConfig, runConformance, validateConfig } from '../index.ts';
import { writeReports } from '../reports/index.ts';
import type { InteropIdp, RunningIdp } from './idp.ts';
import { freePort } from './support.ts';

export const INTEROP_DIR = fileURLToPath(new URL('.', import.meta.url));
export const EXPECTATIONS_DIR = path.join(INTEROP_DIR, 'expectations');
export const REPORTS_DIR = path.join(INTEROP_DIR, 'reports');

/**
 * The IdPs, in the order the matrix runs them, with the folders their modules may live in and the module's file
 * there (index.ts unless named: a second configuration of the same product).
 */
export const IDPS: readonly { name: string; dirs: readonly string[]; file?: string }[] = [
  { name: 'django-oauth-toolkit', dirs: ['django-oauth-toolkit'] },
  { name: 'django-oauth-toolkit-oauth2', dirs: ['django-oauth-toolkit'], file: 'oauth2.ts' },
  { name: 'lemonldap-ng', dirs: ['lemonldap-ng', 'lemonldap'] },
  { name: 'node-oauth2-server', dirs: ['node-oauth2-server'] },
  { name: 'oidc-provider', dirs: ['oidc-provider'] },
  { name: 'glewlwyd', dirs: ['glewlwyd'] },
  { name: 'openauth', dirs: ['openauth'] },
  { name: 'better-auth', dirs: ['better-auth'] },
  { name: 'mcp-sdk', dirs: ['mcp-sdk'] },
];

/** The file of an IdP's module in one of its folders. */
export const moduleFile = (entry: (typeof IDPS)[number], dir: string) =>
  path.join(INTEROP_DIR, dir, entry.file ?? 'index.ts');

/**
 * The run's fixed settings. The `rfc` profile: these products are judged by the RFCs and OpenID
 * specs alone, not by this project's service spec (whose extra rules, such as rotation for every
 * client, no foreign product promises), unless a module names its own (InteropIdp.profile: an MCP revision). A fixed
 * seed keeps property runs the same each time.
 */
export const RUN: { profile: ProfileName; seed: number; concurrency: number } = {
  profile: 'rfc',
  seed: 20261123,
  concurrency: 4,
};

/** The IdP's module, or undefined when its folder is absent (e.g. a branch not merged yet). */
export async function loadIdp(name: string): Promise<InteropIdp | undefined> {
  const entry = IDPS.find((i) => i.name === name);
  if (!entry) throw new Error(`unknown IdP "${name}"; known: ${IDPS.map((i) => i.name).join(', ')}`);
  for (const dir of entry.dirs) {
    const file = moduleFile(entry, dir);
    if (!existsSync(file)) continue;
    const mod: { default: InteropIdp } = await import(pathToFileURL(file).href);
    return mod.default;
  }
  return undefined;
}

export interface IdpRun {
  report: Report;
  /** Wall time of start + catalog + stop, ms. */
  wallMs: number;
  /** The login driver(s) the catalog ran with, in words: "form driver", "form driver, then the browser driver for …" */
  driver: string;
}

const DRIVER_NAME = z.enum(['auto', 'form', 'browser']);
export type DriverName = z.infer<typeof DRIVER_NAME>;

/** A target config's `login` settings: the driver it names (if any) and the driver's own fields. */
const LOGIN = z.looseObject({ driver: DRIVER_NAME.optional() });

/** The `login` of a target config object, read (an object, its driver one of ours); `{}` when it has none. */
const loginOf = (target: Record<string, unknown>) => (target.login === undefined ? {} : LOGIN.parse(target.login));

/**
 * A target config object validated as runConformance validates one (harness/config/load.ts), so that the run is handed
 * a config read, not one asserted to be right.
 */
export const loadedTarget = (target: Record<string, unknown>): LoadedConfig => ({
  config: validateConfig(target),
  source: 'object',
});

/**
 * The target config with the login driver `driver`: the IdP's own login settings when it already
 * uses that driver (no driver named is auto, the default); the browser driver otherwise without
 * steps (it reads every page through the shared page walk); the form and auto drivers with the
 * IdP's field names.
 */
export function withDriver(target: Record<string, unknown>, driver: DriverName | undefined): Record<string, unknown> {
  const { driver: own = 'auto', ...fields } = loginOf(target);
  if (!driver || own === driver) return target;
  if (driver === 'browser' || own === 'browser') return { ...target, login: { driver } };
  return { ...target, login: { ...fields, driver } };
}

/** The login driver a target config names (auto when it names none). */
export function driverOf(target: Record<string, unknown>): DriverName {
  return loginOf(target).driver ?? 'auto';
}

/** The report of the first pass with the browser pass's results in place of its own, and a notice for each. */
export function withBrowserPass(first: Report, browser: Report, why: string): Report {
  const ids = new Set(browser.results.map((r) => r.id));
  const results = [...first.results.filter((r) => !ids.has(r.id)), ...browser.results].sort((a, b) =>
    a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
  );
  const notices = [
    ...(first.notices ?? []),
    ...[...ids].sort().map((id) => `${id}: run with the browser login driver (${why})`),
  ];
  return {
    ...first,
    durationMs: first.durationMs + browser.durationMs,
    selection: { ...first.selection, skip: first.selection.skip.filter((id) => !ids.has(id)) },
    summary: summarize(results),
    results,
    ...(notices.length ? { notices } : {}),
  };
}

/** What one catalog run against an IdP takes besides the IdP. */
export interface CatalogOptions {
  reportDir?: string;
  only?: string[];
  driver?: DriverName;
  /**
   * false: the run shares no signed-in session (`login.shareSession: false`): every walk signs in afresh. The sharing
   * invariant (test/interop/sharing.test.ts) compares the two.
   */
  shareSession?: boolean;
  /**
   * true: the target config gets the IdP module's `signInSteps` as `login.steps` (steps a deployer writes for the
   * fresh sign-in page only), which must give the same verdicts (`npm run interop -- --with-steps`).
   */
  withSteps?: boolean;
}

/** The target config with the module's sign-in steps as `login.steps` when asked. */
export function withSteps(idp: InteropIdp, target: Record<string, unknown>, on: boolean | undefined) {
  if (!on) return target;
  if (!idp.signInSteps) throw new Error(`${idp.name}: its module names no signInSteps (interop/idp.ts)`);
  return { ...target, login: { ...loginOf(target), steps: idp.signInSteps } };
}

/** The target config with sharing turned off when asked (`login.shareSession: false`), else as it is. */
export function withSharing(target: Record<string, unknown>, share: boolean | undefined): Record<string, unknown> {
  if (share !== false) return target;
  return { ...target, login: { ...loginOf(target), shareSession: false } };
}

/** Starts the IdP on a free port, hands it to `use`, and stops it (and removes its work folder) afterwards. */
export async function withRunningIdp<T>(
  idp: InteropIdp,
  use: (running: RunningIdp) => Promise<T>,
  log?: (line: string) => void,
): Promise<T> {
  const workDir = await mkdtemp(path.join(tmpdir(), `interop-${idp.name}-`));
  try {
    const port = await freePort();
    const running = await idp.start({ port, workDir, ...(log ? { log } : {}) });
    try {
      return await use(running);
    } finally {
      await running.stop();
    }
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/**
 * Starts the IdP on a free port, runs the catalog (reports to `reportDir` when given) with its
 * target config's login driver, or `driver` when given, and stops it. Without `driver`, an IdP's
 * `browserPass` scenarios run a second time through the browser driver, and their verdicts count.
 */
export async function runIdp(
  idp: InteropIdp,
  options: CatalogOptions & { log?: (line: string) => void } = {},
): Promise<IdpRun> {
  const started = performance.now();
  const run = await withRunningIdp(idp, (running) => runCatalogOn(idp, running, options), options.log);
  return { ...run, wallMs: Math.round(performance.now() - started) };
}

/** The catalog (or `only`) against an IdP already running: runIdp's run, without starting or stopping it. */
export async function runCatalogOn(
  idp: InteropIdp,
  running: RunningIdp,
  options: CatalogOptions = {},
): Promise<IdpRun> {
  const started = performance.now();
  const configured = withSteps(idp, running.targetConfig, options.withSteps);
  const target = withSharing(withDriver(configured, options.driver), options.shareSession);
  const driver = driverOf(target);
  // Only the form driver leaves pages to the browser; the auto driver goes on in it by itself.
  const pass = options.driver === undefined && driver === 'form' ? idp.browserPass : undefined;
  const again = pass
    ? selectScenarios(
        BUILT_IN_SCENARIOS.filter((s) => pass.scenarios.includes(s.id)),
        options.only ?? [],
      ).map((s) => s.id)
    : [];
  const run = {
    ...RUN,
    profile: idp.profile?.name ?? RUN.profile,
    concurrency: idp.concurrency?.scenarios ?? RUN.concurrency,
  };
  const report = await runConformance({
    // The module's config object, validated like any other.
    target: loadedTarget(target),
    ...run,
    ...(options.only ? { only: options.only } : {}),
    ...(again.length ? { skip: again } : {}),
    ...(options.reportDir ? { reportDir: options.reportDir } : {}),
  });
  if (!pass || !again.length)
    return { report, wallMs: Math.round(performance.now() - started), driver: `${driver} driver` };
  const browserDir = options.reportDir && path.join(options.reportDir, 'browser-pass');
  const browser = await runConformance({
    target: loadedTarget(withSharing(withDriver(configured, 'browser'), options.shareSession)),
    ...run,
    only: again,
    ...(browserDir ? { reportDir: browserDir } : {}),
  });
  const merged = withBrowserPass(report, browser, pass.why);
  if (options.reportDir && browserDir) {
    // The merged report in the folder's place; the browser pass's screenshots beside the first pass's.
    await cp(path.join(browserDir, 'screenshots'), path.join(options.reportDir, 'screenshots'), {
      recursive: true,
      force: true,
    }).catch(() => undefined);
    await writeReports(merged, options.reportDir);
  }
  return {
    report: merged,
    wallMs: Math.round(performance.now() - started),
    driver: `${driver} driver, then the browser driver for ${again.join(', ')}`,
  };
}

export interface Expectation {
  status: Status;
  /** One line: why. A result that is the harness's fault starts with `harness:`. */
  reason: string;
  /**
   * Other statuses this scenario is seen with too, for a verdict that depends on timing (a race
   * the product loses only sometimes): the reason says how often and why. Rare on purpose.
   */
  also?: Status[];
}

/** Whether `status` is what the expectation allows. */
export const allows = (e: Expectation | undefined, status: Status) =>
  !!e && (e.status === status || !!e.also?.includes(status));

export interface Expectations {
  idp: string;
  /** How the IdP is set up, in one line (shown above its table). */
  setup?: string;
  scenarios: Record<string, Expectation>;
}

export const expectationsFile = (idp: string) => path.join(EXPECTATIONS_DIR, `${idp}.json`);

const STATUS = z.enum(['passed', 'failed', 'warning', 'skipped', 'error']);
/** An expectations file as read (members it does not name kept, so that --update writes them back). */
const EXPECTATIONS: z.ZodType<Expectations> = z.looseObject({
  idp: z.string(),
  setup: z.string().optional(),
  scenarios: z.record(
    z.string(),
    z.looseObject({ status: STATUS, reason: z.string(), also: z.array(STATUS).optional() }),
  ),
});

/** An expectations file's text, parsed (a malformed file fails here, naming what is wrong). */
export const parseExpectations = (text: string): Expectations => EXPECTATIONS.parse(JSON.parse(text));

export async function readExpectations(idp: string): Promise<Expectations | undefined> {
  const file = expectationsFile(idp);
  if (!existsSync(file)) return undefined;
  return parseExpectations(await readFile(file, 'utf8'));
}

/** The text of an expectations file: its scenarios sorted by id. */
export function renderExpectations(expectations: Expectations): string {
  const sorted = Object.fromEntries(Object.entries(expectations.scenarios).sort(([a], [b]) => a.localeCompare(b)));
  return `${JSON.stringify({ ...expectations, scenarios: sorted }, null, 2)}\n`;
}

export async function writeExpectations(expectations: Expectations): Promise<void> {
  await writeFile(expectationsFile(expectations.idp), renderExpectations(expectations));
}

/** The scenarios a run has that the expectations do not list. */
export const unlisted = (diffs: readonly Difference[]) => diffs.filter((d) => d.actual && !d.expected).map((d) => d.id);

/** The command that records scenarios an IdP's expectations do not list yet (their entries come marked TODO). */
export const recordCommand = (idp: string, ids: readonly string[]) =>
  `npm run interop -- --idp ${idp} --update ${ids.map((id) => `--only ${id}`).join(' ')}`;

/** One line of what a result said, for a TODO reason. */
export function summaryOf(result: ScenarioResult): string {
  const text = result.status === 'skipped' ? result.skipReason : result.message;
  const line = (text ?? '').replace(/\s+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
}

export interface Difference {
  id: string;
  expected?: Status;
  actual?: Status;
  /** What the run said (message or skip reason). */
  said?: string;
}

/** Every scenario whose verdict differs from the expectations (also: new or vanished scenarios). */
export function compare(expectations: Expectations, report: Report): Difference[] {
  const diffs: Difference[] = [];
  const seen = new Set<string>();
  for (const result of report.results) {
    seen.add(result.id);
    const expectation = expectations.scenarios[result.id];
    if (!allows(expectation, result.status)) {
      const expected = expectation?.status;
      diffs.push({ id: result.id, ...(expected ? { expected } : {}), actual: result.status, said: summaryOf(result) });
    }
  }
  for (const [id, e] of Object.entries(expectations.scenarios)) {
    if (!seen.has(id)) diffs.push({ id, expected: e.status });
  }
  return diffs;
}

export function describeDifference(d: Difference): string {
  if (!d.actual) return `${d.id}: expected ${d.expected}, but the run has no such scenario`;
  if (!d.expected) return `${d.id}: ${d.actual}, but the expectations do not list it${d.said ? ` (${d.said})` : ''}`;
  return `${d.id}: expected ${d.expected}, got ${d.actual}${d.said ? ` — ${d.said}` : ''}`;
}

/**
 * `--update`: the expectations rewritten from a run. Statuses come from the run; a reason is kept where the status
 * did not change, and a new or changed one reads `TODO: ...` (the run's own words) until someone classifies it.
 * `partial` (a run with `--only`): the scenarios the run did not select keep their entries, so
 * `--update --only ID` adds or rewrites ID's entry and nothing else; without it the run covers the whole catalog, so
 * an entry for a scenario no longer in it is dropped.
 */
export function updatedExpectations(
  idp: string,
  old: Expectations | undefined,
  report: Report,
  options: { partial?: boolean } = {},
): Expectations {
  const scenarios: Record<string, Expectation> = options.partial ? { ...old?.scenarios } : {};
  for (const result of report.results) {
    const before = old?.scenarios[result.id];
    scenarios[result.id] =
      before && allows(before, result.status)
        ? before
        : {
            status: result.status,
            reason: `TODO: ${before ? `was ${before.status}; ` : ''}${summaryOf(result) || result.status}`,
          };
  }
  return { idp, ...(old?.setup ? { setup: old.setup } : {}), scenarios };
}
