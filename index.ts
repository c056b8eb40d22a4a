/**
 * The library API: `import { runConformance, createReferenceServer, defineScenario } from 'idp-conformance'`.
 * The package ships it compiled (`dist/`, `npm run build`, with type declarations); in this repository it runs
 * from the TypeScript sources through tsx or vitest.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type TargetConfig, type TargetConfigInput, loadTarget, validateConfig } from './harness/config/load.ts';
import { runSuite } from './harness/run/conformance.ts';
import { PACKAGE_ROOT } from './harness/run/package-info.ts';
import type { Report } from './harness/model/results.ts';
import { type RunPlan, type RunSettings, planRun } from './harness/run/plan.ts';
import { type BaselineReport, compareWithBaseline } from './reports/baseline.ts';
import { type ReportFormat, writeReports } from './reports/index.ts';
import { BUILT_IN_SCENARIOS } from './suites/index.ts';

export {
  defineScenario,
  isScenario,
  CheckFailure,
  PreconditionError,
  GRANT,
  LoginSession,
} from './harness/scenario/scenario.ts';
export type * from './harness/scenario/scenario.ts';
export { createReferenceServer, type ReferenceOptions, type ReferenceServer } from './reference/index.ts';
export { loadTarget, validateConfig, type TargetConfig, type TargetConfigInput } from './harness/config/load.ts';
export { targetConfigSchema } from './harness/config/schema.ts';
export { ConfigError, TargetUnreachableError } from './harness/model/failures.ts';
export { writeReports, REPORT_FORMATS, type ReportFormat } from './reports/index.ts';
export { BUILT_IN_SCENARIOS } from './suites/index.ts';
export { BrowserHost, findChromium } from './harness/login/chromium.ts';
export type { RunSettings } from './harness/run/plan.ts';
export * as checks from './suites/checks/index.ts';
/**
 * fast-check (the copy the harness runs properties with) and the project's generators, for property scenarios of your
 * own.
 */
export { default as fc } from 'fast-check';
export * as generators from './generators/index.ts';
/** Protocol facts (grant and token types, S256, at_hash, the JWS algorithm table, error codes). */
export * as protocol from './protocol/index.ts';
export type { FlawName } from './protocol/flaw-names.ts';

/** The service specification in this package (docs/service-spec.md), where SPEC requirements link. */
export const SERVICE_SPEC_PATH = 'docs/service-spec.md';

/** A file URL of the package's own docs/service-spec.md (it ships in the package), or undefined if it is missing. */
export function defaultSpecUrl(): string | undefined {
  const file = join(PACKAGE_ROOT, SERVICE_SPEC_PATH);
  return existsSync(file) ? pathToFileURL(file).href : undefined;
}

/** A target already loaded and validated (loadTarget's result, the embedded reference's config): used as is. */
export interface LoadedConfig {
  config: TargetConfig;
  source: Report['target']['source'];
}

/** How a run's reports are written: the folder, the formats, the baseline to compare with. */
export interface ReportOutput {
  /** Write reports here (json, junit, html, md unless `formats` says otherwise); screenshots go to its screenshots/. */
  reportDir?: string;
  formats?: readonly ReportFormat[];
  /** An earlier run's report (reports' parseBaseline) and where it came from: the report compares with it. */
  baseline?: { report: BaselineReport; path: string };
  /** Called with the files written to reportDir. */
  onReportsWritten?: (files: string[]) => void;
}

/**
 * What planConformance took besides the loaded target: now the one settings type, RunSettings (harness/run/plan.ts).
 * The name stays for code written against it.
 */
export type ConformancePlanInput = RunSettings;

/** runConformance's options: the run settings, where the target is, where the reports go. */
export interface ConformanceOptions extends RunSettings, ReportOutput {
  /** A config file path, an issuer URL, a config object, or a config already loaded (`{ config, source }`). */
  target: string | TargetConfigInput | TargetConfig | LoadedConfig;
  /** Environment for ${ENV} interpolation (default process.env). */
  env?: NodeJS.ProcessEnv;
}

/** The run finished but its reports could not be written: the report is here, the cause in `cause`. */
export class ReportWriteError extends Error {
  constructor(
    readonly report: Report,
    readonly dir: string,
    cause: unknown,
  ) {
    super(`cannot write the reports to ${dir}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'ReportWriteError';
  }
}

function isLoadedConfig(target: ConformanceOptions['target']): target is LoadedConfig {
  return typeof target === 'object' && target !== null && 'config' in target && 'source' in target;
}

/** The target option as a validated config and where it came from. */
async function loadConformanceTarget(target: ConformanceOptions['target'], env?: NodeJS.ProcessEnv) {
  if (typeof target === 'string') return loadTarget(target, env);
  if (isLoadedConfig(target)) return target;
  return { config: validateConfig(target, env), source: 'object' as const };
}

/**
 * The run plan (harness/run/plan.ts) for a loaded target: the scenarios (default: the built-in catalog, then the
 * extra ones), the links (default: this package's service spec), the rest resolved by planRun.
 */
export function planConformance(loaded: LoadedConfig, settings: RunSettings): RunPlan {
  const specUrl = settings.links ? undefined : defaultSpecUrl();
  return planRun({
    ...settings,
    config: loaded.config,
    source: loaded.source,
    scenarios: settings.scenarios ?? BUILT_IN_SCENARIOS,
    links: settings.links ?? (specUrl ? { specUrl } : {}),
  });
}

/**
 * Run a plan (harness/run/conformance.ts runSuite), compare with the baseline, write the reports. Throws
 * TargetUnreachableError (discovery unreachable), ConfigError (found once discovery was read) or ReportWriteError.
 */
export async function runPlanned(plan: RunPlan, output: ReportOutput = {}): Promise<Report> {
  const { reportDir, formats, baseline, onReportsWritten } = output;
  const report = await runSuite(plan);
  if (baseline) report.baseline = compareWithBaseline(report, baseline.report, baseline.path);
  if (reportDir) {
    let written: string[];
    try {
      written = await writeReports(report, reportDir, formats);
    } catch (error) {
      throw new ReportWriteError(report, reportDir, error);
    }
    onReportsWritten?.(written);
  }
  return report;
}

/**
 * Run the conformance suites against a target: load the config, plan the run (planConformance), run it
 * (runPlanned). Throws ConfigError (invalid config, before any request), TargetUnreachableError (discovery
 * unreachable) or ReportWriteError; every scenario outcome is in the report. `idp-conformance run` is
 * planConformance and runPlanned per target.
 */
export async function runConformance(options: ConformanceOptions): Promise<Report> {
  const { target, env, formats, baseline, onReportsWritten, ...settings } = options;
  const loaded = await loadConformanceTarget(target, env);
  return runPlanned(planConformance(loaded, settings), {
    reportDir: options.reportDir,
    formats,
    baseline,
    onReportsWritten,
  });
}
