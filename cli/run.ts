/** `idp-conformance run`: the conformance suites against a target (or the embedded reference). */
import { resolve } from 'node:path';
import { type LoadedTarget, loadTarget, validateConfig } from '../harness/config.ts';
import { runSuite } from '../harness/conformance.ts';
import { ConfigError, TargetUnreachableError } from '../harness/failures.ts';
import { patternList } from '../harness/glob.ts';
import { PROFILES } from '../harness/requirements.ts';
import type { ProfileName, Report } from '../harness/results.ts';
import { randomSeed, selectScenarios } from '../harness/runner.ts';
import { defaultSpecUrl } from '../index.ts';
import { FLAW_NAMES, type FlawName, isFlawName } from '../reference/index.ts';
import { ConsoleReporter, REPORT_FORMATS, type ReportFormat, isReportFormat, writeReports } from '../reports/index.ts';
import { BUILT_IN_SCENARIOS } from '../suites/index.ts';
import { type Command, UsageError, parseOptions } from './command.ts';
import { type EmbeddedReference, startEmbeddedReference } from './embedded.ts';
import { loadScenarioFiles, mergeScenarios } from './scenario-files.ts';

const USAGE = `Usage: idp-conformance run [options]
       npm run conformance -- [options]

Runs the conformance suites. Without --target it starts the embedded reference server in-process
and runs against it.

Options:
  --target FILE|URL     a target config file (see \`idp-conformance init\`), or an issuer URL
                        (then only discovery-level scenarios apply; the rest are skipped)
  --only GLOB           run only these scenario ids, e.g. 'pkce.*' (comma-separated, repeatable)
  --skip GLOB           leave these out (comma-separated, repeatable)
  --profile spec|rfc    which documents count (default spec: SPEC plus the RFCs and OIDC)
  --report DIR          where reports go (default ./conformance-report)
  --format LIST         json,junit,html,md (default all)
  --seed N              seed for generated values (default random; printed and in report.json)
  --runs N              runs of every property (default: each property's own, at most 50;
                        a failing property prints the options that replay it exactly)
  --concurrency N       scenarios in flight at once (default 4)
  --timeout MS          per-scenario time limit (default: the config's timeouts.scenarioMs, else 30000)
  --fail-on LEVEL       exit 1 on: failed (default), warning (failed or warning), error (any of them),
                        security (only failures where the attack or bad request was accepted)
  --scenarios GLOB      also load your own scenario files (TS or JS; repeatable)
  --flaw NAME           embedded reference only: switch on a planted flaw (repeatable)
  -h, --help            show this help

Exit codes: 0 nothing failed, 1 a scenario failed, 2 usage or config error, 3 target unreachable.`;

export type FailOn = 'failed' | 'warning' | 'error' | 'security';
export const FAIL_ON: readonly FailOn[] = ['failed', 'warning', 'error', 'security'];

/**
 * 1 when a result that is not an expected failure reaches the --fail-on threshold. `security`
 * counts only failures whose kind is `accepted` (the attack or bad request succeeded); a failure
 * without a kind counts too, so nothing slips through unclassified.
 */
export function exitCodeFor(report: Report, failOn: FailOn = 'failed'): 0 | 1 {
  const counted = report.results.filter((r) => !r.expected);
  if (failOn === 'security') return counted.some((r) => r.status === 'failed' && r.failureKind !== 'refused-wrongly') ? 1 : 0;
  const bad = counted.some((r) => r.status === 'failed'
    || (failOn !== 'failed' && r.status === 'warning')
    || (failOn === 'error' && r.status === 'error'));
  return bad ? 1 : 0;
}

function integer(name: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > 0x7fffffff) throw new UsageError(`--${name} must be an integer ≥ ${min}, not "${value}"`);
  return n;
}

function formats(value: string | undefined): ReportFormat[] {
  if (value === undefined) return [...REPORT_FORMATS];
  const list = patternList([value]);
  for (const f of list) if (!isReportFormat(f)) throw new UsageError(`--format: unknown format "${f}"; choose from ${REPORT_FORMATS.join(', ')}`);
  return list as ReportFormat[];
}

export const runCommand: Command = {
  summary: 'run the conformance suites against a target (default: the embedded reference)',
  usage: USAGE,
  async run(argv) {
    const v = parseOptions(argv, {
      target: { type: 'string' },
      only: { type: 'string', multiple: true, default: [] },
      skip: { type: 'string', multiple: true, default: [] },
      profile: { type: 'string', default: 'spec' },
      report: { type: 'string', default: './conformance-report' },
      format: { type: 'string' },
      seed: { type: 'string' },
      runs: { type: 'string' },
      concurrency: { type: 'string' },
      timeout: { type: 'string' },
      'fail-on': { type: 'string', default: 'failed' },
      scenarios: { type: 'string', multiple: true, default: [] },
      flaw: { type: 'string', multiple: true, default: [] },
      help: { type: 'boolean', short: 'h' },
    });
    if (v.help) {
      console.log(USAGE);
      return 0;
    }
    if (!(PROFILES as readonly string[]).includes(v.profile)) throw new UsageError(`--profile must be one of ${PROFILES.join(', ')}, not "${v.profile}"`);
    const failOn = v['fail-on'];
    if (!(FAIL_ON as readonly string[]).includes(failOn)) throw new UsageError(`--fail-on must be ${FAIL_ON.slice(0, -1).join(', ')} or ${FAIL_ON.at(-1)}, not "${failOn}"`);
    const seed = integer('seed', v.seed, 0) ?? randomSeed();
    const runs = integer('runs', v.runs, 1);
    const concurrency = integer('concurrency', v.concurrency, 1);
    const timeout = integer('timeout', v.timeout, 1);
    const chosenFormats = formats(v.format);
    const only = patternList(v.only);
    const skip = patternList(v.skip);
    for (const f of v.flaw) if (!isFlawName(f)) throw new UsageError(`--flaw: unknown flaw "${f}"; known flaws: ${FLAW_NAMES.join(', ')}`);
    if (v.flaw.length && v.target) throw new UsageError('--flaw applies to the embedded reference only; leave out --target');

    const scenarios = mergeScenarios(BUILT_IN_SCENARIOS, await loadScenarioFiles(patternList(v.scenarios)));
    if (selectScenarios(scenarios, only, skip).length === 0) {
      throw new UsageError(`no scenario matches --only ${only.join(',') || '*'}${skip.length ? ` --skip ${skip.join(',')}` : ''}; \`idp-conformance list\` shows the ids`);
    }

    let loaded: Pick<LoadedTarget, 'config' | 'location'> & { source: Report['target']['source'] };
    let embedded: EmbeddedReference | undefined;
    try {
      if (v.target) loaded = await loadTarget(v.target);
      else {
        embedded = await startEmbeddedReference({ flaws: v.flaw as FlawName[] });
        loaded = { config: validateConfig(embedded.target), source: 'embedded', location: embedded.issuer };
      }
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      console.error(`idp-conformance run: ${error.message}`);
      return 2;
    }

    const out = new ConsoleReporter();
    const where = loaded.source === 'embedded' ? 'the embedded reference server' : loaded.location;
    out.line(`idp-conformance: ${loaded.config.issuer} (${where}) — profile ${v.profile}, seed ${seed}`);
    if (v.flaw.length) out.line(`!! planted flaws on in the embedded reference: ${v.flaw.join(', ')}`);
    const specUrl = defaultSpecUrl();
    try {
      const report = await runSuite({
        config: loaded.config, source: loaded.source, scenarios, only, skip, seed,
        profile: v.profile as ProfileName,
        ...(runs ? { runs } : {}),
        ...(concurrency ? { concurrency } : {}),
        ...(timeout ? { scenarioTimeoutMs: timeout } : {}),
        ...(specUrl ? { links: { specUrl } } : {}),
        reportDir: resolve(v.report),
        onResult: (r) => out.result(r),
      });
      let written: string[];
      try {
        written = await writeReports(report, resolve(v.report), chosenFormats);
      } catch (error) {
        console.error(`idp-conformance run: cannot write the reports to ${v.report}: ${(error as Error).message}`);
        out.summary(report);
        return 2;
      }
      out.summary(report, written);
      return exitCodeFor(report, failOn as FailOn);
    } catch (error) {
      if (!(error instanceof TargetUnreachableError)) throw error;
      console.error(`idp-conformance run: the target is unreachable: ${error.message}`);
      return 3;
    } finally {
      await embedded?.server.close();
    }
  },
};
