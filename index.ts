/**
 * The library API: `import { runConformance, createReferenceServer, defineScenario } from 'idp-conformance'`.
 * The package runs its TypeScript sources through tsx (a dependency): use it from vitest, tsx, or
 * `node --import tsx`; the `idp-conformance` command registers tsx itself.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type TargetConfig, type TargetConfigInput, loadTarget, validateConfig } from './harness/config.ts';
import { type SuiteOptions, runSuite } from './harness/conformance.ts';
import { PACKAGE_ROOT } from './harness/package-info.ts';
import type { Report } from './harness/results.ts';
import type { Scenario } from './harness/scenario.ts';
import { type ReportFormat, writeReports } from './reports/index.ts';
import { BUILT_IN_SCENARIOS } from './suites/index.ts';

export {
  defineScenario,
  isScenario,
  CheckFailure,
  PreconditionError,
  GRANT,
  LoginSession,
} from './harness/scenario.ts';
export type * from './harness/scenario.ts';
export { createReferenceServer, type ReferenceOptions, type ReferenceServer } from './reference/index.ts';
export {
  loadTarget,
  validateConfig,
  targetConfigSchema,
  type TargetConfig,
  type TargetConfigInput,
} from './harness/config.ts';
export { ConfigError, TargetUnreachableError } from './harness/failures.ts';
export { writeReports, REPORT_FORMATS, type ReportFormat } from './reports/index.ts';
export { BUILT_IN_SCENARIOS } from './suites/index.ts';
export { BrowserHost, findChromium } from './harness/login/chromium.ts';
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

export interface ConformanceOptions extends Omit<SuiteOptions, 'config' | 'scenarios' | 'source'> {
  /** A config file path, an issuer URL, or a config object. */
  target: string | TargetConfigInput | TargetConfig;
  /** Default: the built-in catalog. */
  scenarios?: readonly Scenario[];
  /** Also run these (e.g. your own scenarios next to the built-in ones). */
  extraScenarios?: readonly Scenario[];
  /** Write reports here (json, junit, html, md unless `formats` says otherwise); screenshots go to its screenshots/. */
  reportDir?: string;
  formats?: readonly ReportFormat[];
  /** Environment for ${ENV} interpolation (default process.env). */
  env?: NodeJS.ProcessEnv;
}

/**
 * Run the conformance suites against a target. Throws ConfigError (invalid config, before any
 * request) or TargetUnreachableError (discovery unreachable); every scenario outcome is in the report.
 */
export async function runConformance(options: ConformanceOptions): Promise<Report> {
  const { target, scenarios, extraScenarios, reportDir, formats, env, ...rest } = options;
  const loaded =
    typeof target === 'string'
      ? await loadTarget(target, env)
      : { config: validateConfig(target, env), source: 'object' as const };
  const specUrl = defaultSpecUrl();
  const report = await runSuite({
    ...rest,
    config: loaded.config,
    source: loaded.source,
    scenarios: [...(scenarios ?? BUILT_IN_SCENARIOS), ...(extraScenarios ?? [])],
    links: rest.links ?? (specUrl ? { specUrl } : {}),
    ...(reportDir ? { reportDir } : {}),
  });
  if (reportDir) await writeReports(report, reportDir, formats);
  return report;
}
