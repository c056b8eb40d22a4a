/** `idp-conformance run`: the conformance suites against a target (or the embedded reference). */
import { readFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import {
  type LoadedTarget,
  type TargetConfig,
  loadTarget,
  shortSecretWarnings,
  validateConfig,
} from '../harness/config/load.ts';
import { stoppedRunReport } from '../harness/run/conformance.ts';
import { ConfigError, HarnessError, TargetUnreachableError, describeError } from '../harness/model/failures.ts';
import { patternList } from '../harness/run/glob.ts';
import type { Report } from '../harness/model/results.ts';
import { type RunSettings, randomSeed } from '../harness/run/plan.ts';
import { parseShard, type Shard } from '../harness/run/shard.ts';
import { ReportWriteError, planConformance, runPlanned } from '../index.ts';
import { FLAW_NAMES, isFlawName, testUsers } from '../reference/index.ts';
import { type IndexEntry, indexLine, writeIndex } from '../reports/index-page.ts';
import { consoleText } from '../reports/escape.ts';
import { ConsoleReporter, type ReportFormat, parseBaseline, writeReports } from '../reports/index.ts';
import { BUILT_IN_SCENARIOS } from '../suites/index.ts';
import { type Command, UsageError, parseOptions } from './command.ts';
import { type FailOn, codeLifetimeOption, exitCodeFor, failOnOption, formats, integer } from './run-options.ts';
import { type EmbeddedReference, startEmbeddedReference } from './embedded.ts';
import { clientlessNotice, count, needsLegacyClient, patternHints, renamedFlawHint } from './hints.ts';
import { loadScenarioFiles, mergeScenarios } from './scenario-files.ts';
import { parseMs, parseUsers, parseVariants } from './serve.ts';
import { NEWEST_MCP_PROFILE, isMcpProfile, loadMcpTarget, profileOption, userOption } from './mcp-target.ts';

const USAGE = `Usage: idp-conformance run [options]
       npm run conformance -- [options]

Runs the conformance suites. Without --target it starts the embedded reference server in-process
and runs against it.

Options:
  --target FILE|URL     a target config file (see \`idp-conformance init\`), or an issuer URL
                        (then only discovery-level scenarios apply; the rest are skipped);
                        under an MCP profile a URL is the MCP server's endpoint (e.g.
                        https://mcp.example/mcp): the harness finds its authorization server as an
                        MCP client does (401 challenge, RFC 9728 metadata, the AS metadata in MCP's
                        probe order) and registers its clients (CIMD where offered, else RFC 7591);
                        repeat it for several targets: reports per target in DIR/<name>/ and
                        an index in DIR/index.html
  --user NAME:PASSWORD  the test user (overrides the config's "user"; with --target URL the only
                        way to name one)
  --only GLOB           run only these scenario ids, e.g. 'pkce.*' (comma-separated, repeatable)
  --skip GLOB           leave these out (comma-separated, repeatable)
  --profile spec|rfc|fapi2|mcp-2025-06-18|mcp-2025-11-25|mcp-2026-07-28|mcp
                        which documents count (default spec: SPEC plus the RFCs and OIDC;
                        fapi2: the FAPI 2.0 Security Profile's server requirements alone, with
                        FAPI 2.0 Message Signing's (signed request objects at PAR);
                        mcp-REVISION: that MCP revision's authorization sentences with the RFCs
                        and OIDC, and the run registers its clients; mcp: the newest revision)
  --report DIR          where reports go (default ./conformance-report)
  --format LIST         json,junit,html,md,sarif (default json,junit,html,md; sarif is
                        SARIF 2.1.0 for GitHub code scanning, written as report.sarif)
  --baseline FILE       an earlier run's report.json: new failures, fixed ones and changed
                        verdicts are shown at the top of every report and in the console
  --seed N              seed for generated values (default random; printed and in report.json)
  --runs N              runs of every property (default: each property's own, at most 50;
                        a failing property prints the options that replay it exactly)
  --concurrency N       scenarios in flight at once (default 4)
  --shard I/N           run only part I of N of the selected scenarios (a stable split by id,
                        for CI runners in parallel); merge the parts with merge-reports
  --timeout MS          per-scenario time limit (default: the config's timeouts.scenarioMs, else 30000)
  --max-run-ms MS       the whole run's time limit, per target (default 600000, 10 minutes): then the
                        scenarios not judged yet are errors, every report is written, exit code 3
  --with-waits          run the scenarios that wait out a lifetime (code.lifetime: 65 s under fapi2, the
                        config's codeLifetimeSeconds + 5 s, else 605 s); without it (or the config's
                        timeouts.withWaits) they are skipped, saying how long they would wait; it adds
                        15 minutes to the default --max-run-ms
  --fail-on LEVEL       exit 1 on: failed (default), warning (failed or warning), error (any of them),
                        security (only failures where the attack or bad request was accepted)
  --scenarios GLOB      also load your own scenario files (TS or JS; repeatable)
  --register            register the clients the config lacks at the IdP (RFC 7591 dynamic client
                        registration) before the scenarios and delete them after, also on Ctrl-C;
                        with --target URL alone, the clients are all registered (no user: the
                        scenarios that need a login are skipped)
  --flaw NAME           embedded reference only: switch on a planted flaw (repeatable)
  --variant NAME        embedded reference only: switch on a variant, a legitimate behaviour of real
                        products (repeatable; \`serve --list-variants\` lists them)
  --oauth-only          embedded reference only: run it as an OAuth 2.0 authorization server
                        without OpenID Connect (serve --oauth-only)
  --users N             embedded reference only: seed N test users (serve --users) and run the
                        scenarios that act as a user at once, one per user (a target config
                        lists its own in "users")
  --slow-ms N           embedded reference only, with --variant slow: the delay added to every
                        response (default 250)
  --code-lifetime S     embedded reference only: its authorization codes live S seconds (default 60;
                        serve --code-lifetime), declared as the config's codeLifetimeSeconds
  -h, --help            show this help

Exit codes: 0 nothing failed, 1 a scenario failed or the run was not a verdict (errors outnumber
the judged results, or every scenario that needs a login errored: a line says so), 2 usage or
config error (also an MCP server URL whose discovery broke off: the message names the step),
3 target unreachable (discovery, or 5 requests in a row unanswered mid-run) or
--max-run-ms reached: the run stopped before judging every scenario.`;

/** --max-run-ms's default: a whole catalog against a slow real IdP takes a few minutes. */
export const DEFAULT_MAX_RUN_MS = 600_000;
/** What --with-waits adds to the default --max-run-ms: room for code.lifetime's longest default wait (605 s). */
export const WAITS_MAX_RUN_MS = 900_000;

type Loaded = Pick<LoadedTarget, 'config' | 'location'> & {
  source: Report['target']['source'];
  /** Lines for the console and the report's notices (an MCP server's discovery). */
  notices?: readonly string[];
};

/** The command line, checked: the run settings (the same for every target), and what only the command uses. */
interface CommandLine {
  settings: RunSettings;
  failOn: FailOn;
  formats: ReportFormat[] | undefined;
  /** An earlier report.json to compare with (--baseline), and its path. */
  baseline: { report: ReturnType<typeof parseBaseline>; path: string } | undefined;
  /** --register: registration.enabled for every target (an MCP profile implies it). */
  register: boolean;
  /** --user: the config's user for every target. */
  user: TargetConfig['user'];
}

/** One --target as a loaded config: an MCP server's URL under an MCP profile, else a file or an issuer URL. */
async function loadOne(target: string, o: CommandLine): Promise<Loaded> {
  if (isMcpProfile(o.settings.profile) && /^https?:\/\//i.test(target)) {
    const mcp = await loadMcpTarget(target, {
      profile: o.settings.profile ?? NEWEST_MCP_PROFILE,
      ...(o.user ? { user: o.user } : {}),
    });
    return { config: mcp.config, source: mcp.source, location: mcp.location, notices: [mcp.line] };
  }
  const loaded = await loadTarget(target);
  return o.user ? { ...loaded, config: { ...loaded.config, user: o.user } } : loaded;
}

/** The config with registration on (--register), keeping the config's own registration settings. */
export function withRegistration(config: TargetConfig): TargetConfig {
  return { ...config, registration: { ...config.registration, enabled: true } };
}

/** One target: the run, its reports in `reportDir`, the console lines; the exit code it earns. */
async function runTarget(
  loaded: Loaded,
  reportDir: string,
  o: CommandLine,
): Promise<{ code: number; report?: Report }> {
  const out = new ConsoleReporter();
  if (o.register) loaded = { ...loaded, config: withRegistration(loaded.config) };
  const registering = loaded.config.registration?.enabled === true;
  const plan = planConformance(loaded, {
    ...o.settings,
    ...(loaded.notices ? { notices: loaded.notices } : {}),
    reportDir,
    onResult: (r) => out.result(r),
    registrationLog: (line) => out.line(line),
    guardSignals: true,
  });
  const { redactor, selection } = plan;
  const { shard } = selection;
  if (selection.matching.length === 0) {
    const { only, skip } = selection;
    throw new UsageError(
      `no scenario matches --only ${only.join(',') || '*'}${skip.length ? ` --skip ${skip.join(',')}` : ''}; ` +
        `\`idp-conformance list\` shows the ids`,
    );
  }
  const where = loaded.source === 'embedded' ? 'the embedded reference server' : loaded.location;
  out.line(
    `idp-conformance: ${loaded.config.issuer} (${where}) — profile ${plan.profile}, ` +
      `seed ${plan.seed}${shard ? `, shard ${shard.index}/${shard.total}` : ''}`,
  );
  if (plan.plantedFlaws.length)
    out.line(`!! planted flaws on in the embedded reference: ${plan.plantedFlaws.join(', ')}`);
  for (const warning of shortSecretWarnings(loaded.config)) out.line(`!! ${warning}`);
  for (const line of loaded.notices ?? []) out.line(`idp-conformance: ${line}`);
  const notice =
    loaded.source !== 'issuer-url' || loaded.config.user
      ? ''
      : registering
        ? 'clients are registered at the IdP for this run; an issuer URL gives no user, so the scenarios that need a ' +
          'login are skipped (name a user in a target config file for them)'
        : clientlessNotice(selection.matching);
  if (notice) out.line(`idp-conformance: ${notice}`);
  let written: string[] = [];
  const startedAt = new Date();
  try {
    const report = await runPlanned(plan, {
      reportDir,
      formats: o.formats,
      baseline: o.baseline,
      onReportsWritten: (files) => {
        written = files;
      },
    });
    out.summary(report, written);
    const code = exitCodeFor(report, o.failOn);
    if (report.verdict && !report.verdict.judged)
      out.line(`not a verdict: ${report.verdict.reason ?? 'the target could not be judged'} (exit code ${code})`);
    return { code, report };
  } catch (error) {
    if (error instanceof ReportWriteError) {
      console.error(`idp-conformance run: ${error.message}`);
      out.summary(error.report);
      return { code: 2, report: error.report };
    }
    if (error instanceof ConfigError) {
      // Found once discovery was read (e.g. registration on, but no registration endpoint): a config error, exit 2.
      console.error(consoleText(redactor.text(`idp-conformance run: ${error.message}`)));
      return { code: 2 };
    }
    // Whatever went wrong, stderr gets one redacted, inert line: never a secret, a token or a stack.
    const say = (text: string) => console.error(consoleText(redactor.text(text)));
    const unreachable = error instanceof TargetUnreachableError;
    const reason = unreachable
      ? `the target is unreachable: ${error.message}`
      : error instanceof HarnessError
        ? error.message
        : `the run stopped on an unexpected ${error instanceof Error ? error.name : typeof error}: ` +
          describeError(error);
    say(`idp-conformance run: ${reason}`);
    // Every requested format is written all the same, the stop as its one result (a CI job uploads them).
    const report = stoppedRunReport({
      issuer: loaded.config.issuer,
      source: loaded.source,
      reason: redactor.text(reason),
      startedAt,
      plan,
    });
    try {
      out.summary(report, await writeReports(report, reportDir, o.formats));
    } catch (writeError) {
      say(`idp-conformance run: the reports could not be written to ${reportDir}: ${describeError(writeError)}`);
    }
    if (unreachable) return { code: 3, report };
    say('not a verdict: the run stopped before the target could be judged (exit code 1)');
    return { code: 1, report };
  }
}

/** A folder name per target: the config file's name (or the issuer's host), made unique. */
export function targetFolderNames(targets: readonly string[]): string[] {
  const used = new Set<string>();
  return targets.map((target) => {
    let base: string;
    if (/^https?:\/\//i.test(target)) {
      try {
        base = new URL(target).host;
      } catch {
        base = 'target';
      }
    } else base = basename(target).replace(/\.jsonc?$/i, '');
    base = base.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+/, '') || 'target';
    let name = base;
    for (let n = 2; used.has(name); n++) name = `${base}-${n}`;
    used.add(name);
    return name;
  });
}

/**
 * Several targets in one run: every config is checked before any request (a bad one is exit 2),
 * then each target runs in turn with its reports in DIR/<name>/, and DIR/index.html and
 * index.json list them all. The exit code is the worst: 3 when a target was unreachable, else 1
 * when one failed, else 0.
 */
async function runSeveral(targets: readonly string[], reportDir: string, o: CommandLine): Promise<number> {
  const loadedAll: Loaded[] = [];
  for (const target of targets) {
    try {
      loadedAll.push(await loadOne(target, o));
    } catch (error) {
      if (error instanceof TargetUnreachableError) {
        console.error(`idp-conformance run: ${target}: the target is unreachable: ${error.message}`);
        return 3;
      }
      if (!(error instanceof ConfigError)) throw error;
      console.error(`idp-conformance run: ${target}: ${error.message}`);
      return 2;
    }
  }
  const names = targetFolderNames(targets);
  const entries: IndexEntry[] = [];
  for (const [i, loaded] of loadedAll.entries()) {
    const name = names[i]!;
    const { code, report } = await runTarget(loaded, join(reportDir, name), o);
    // An unreachable target's folder holds only the report of the stop: the index says "unreachable", no counts.
    const counted = report && code !== 3;
    entries.push({ name, issuer: loaded.config.issuer, code, ...(counted ? { summary: report.summary } : {}) });
  }
  const written = await writeIndex(entries, reportDir);
  console.log(`\nAll ${count(entries.length, 'target')}: ${written.join(', ')}`);
  for (const entry of entries) console.log(`  ${indexLine(entry)}`);
  if (entries.some((e) => e.code === 2)) return 2;
  if (entries.some((e) => e.code === 3)) return 3;
  return entries.some((e) => e.code === 1) ? 1 : 0;
}

export const runCommand: Command = {
  summary: 'run the conformance suites against a target (default: the embedded reference)',
  usage: USAGE,
  async run(argv) {
    const v = parseOptions(argv, {
      target: { type: 'string', multiple: true, default: [] },
      only: { type: 'string', multiple: true, default: [] },
      skip: { type: 'string', multiple: true, default: [] },
      profile: { type: 'string' },
      report: { type: 'string', default: './conformance-report' },
      format: { type: 'string' },
      baseline: { type: 'string' },
      seed: { type: 'string' },
      runs: { type: 'string' },
      concurrency: { type: 'string' },
      shard: { type: 'string' },
      timeout: { type: 'string' },
      'max-run-ms': { type: 'string' },
      'with-waits': { type: 'boolean' },
      'fail-on': { type: 'string', default: 'failed' },
      scenarios: { type: 'string', multiple: true, default: [] },
      flaw: { type: 'string', multiple: true, default: [] },
      variant: { type: 'string', multiple: true, default: [] },
      register: { type: 'boolean' },
      user: { type: 'string' },
      'oauth-only': { type: 'boolean', default: false },
      users: { type: 'string' },
      'slow-ms': { type: 'string' },
      'code-lifetime': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    });
    if (v.help) {
      console.log(USAGE);
      return 0;
    }
    const profile = profileOption(v.profile);
    const user = userOption(v.user);
    const failOn = failOnOption(v['fail-on']);
    const seed = integer('seed', v.seed, 0);
    const runs = integer('runs', v.runs, 1);
    const concurrency = integer('concurrency', v.concurrency, 1);
    const timeout = integer('timeout', v.timeout, 1);
    const withWaits = v['with-waits'] === true;
    const maxRunMs =
      integer('max-run-ms', v['max-run-ms'], 1) ?? DEFAULT_MAX_RUN_MS + (withWaits ? WAITS_MAX_RUN_MS : 0);
    const chosenFormats = formats(v.format);
    let shard: Shard | undefined;
    try {
      shard = v.shard === undefined ? undefined : parseShard(v.shard);
    } catch (err) {
      throw new UsageError(err instanceof Error ? err.message : String(err));
    }
    if (shard && v.seed === undefined) {
      throw new UsageError(
        '--shard needs --seed: give every shard the same seed (e.g. the CI run number), so the merged ' +
          'report is one run',
      );
    }
    const only = patternList(v.only);
    const skip = patternList(v.skip);
    for (const f of v.flaw)
      if (!isFlawName(f))
        throw new UsageError(`--flaw: unknown flaw "${f}"${renamedFlawHint(f)}; known flaws: ${FLAW_NAMES.join(', ')}`);
    if (v.flaw.length && v.target.length)
      throw new UsageError('--flaw applies to the embedded reference only; leave out --target');
    const variants = parseVariants(v.variant);
    if (variants.length && v.target.length)
      throw new UsageError('--variant applies to the embedded reference only; leave out --target');
    if (v.register && !v.target.length)
      throw new UsageError(
        '--register needs --target: the embedded reference has its clients seeded (give --target URL or FILE)',
      );
    if (v['oauth-only'] && v.target.length)
      throw new UsageError('--oauth-only applies to the embedded reference only; leave out --target');
    if ((v.users !== undefined || v['slow-ms'] !== undefined) && v.target.length)
      throw new UsageError(
        '--users and --slow-ms apply to the embedded reference only; for a target, list its users in the config ' +
          '("users")',
      );
    const testUserCount = v.users === undefined ? 1 : parseUsers(v.users);
    const slowMs = v['slow-ms'] === undefined ? undefined : parseMs('--slow-ms', v['slow-ms'], 0);
    if (slowMs !== undefined && !variants.includes('slow'))
      throw new UsageError('--slow-ms sets the delay of --variant slow; add --variant slow');
    if (v['code-lifetime'] !== undefined && v.target.length)
      throw new UsageError('--code-lifetime applies to the embedded reference only; leave out --target');
    let baseline: CommandLine['baseline'];
    if (v.baseline !== undefined) {
      try {
        baseline = { report: parseBaseline(await readFile(v.baseline, 'utf8'), v.baseline), path: v.baseline };
      } catch (error) {
        const missing = error instanceof Error && 'code' in error && error.code === 'ENOENT';
        throw new UsageError(
          `--baseline: ${
            missing ? `${v.baseline} does not exist` : error instanceof Error ? error.message : String(error)
          }`,
        );
      }
    }

    const scenarios = mergeScenarios(BUILT_IN_SCENARIOS, await loadScenarioFiles(patternList(v.scenarios)));
    const ids = scenarios.map((s) => s.id);
    const hints = [...patternHints(ids, only, '--only'), ...patternHints(ids, skip, '--skip')];
    if (hints.length) throw new UsageError(hints.join('\n'));

    const settings: CommandLine = {
      settings: {
        only,
        skip,
        // Drawn once: every target of the run gets the same seed.
        seed: seed ?? randomSeed(),
        profile,
        plantedFlaws: v.flaw,
        runs,
        concurrency,
        shard,
        scenarioTimeoutMs: timeout,
        maxRunMs,
        ...(withWaits ? { withWaits } : {}),
        scenarios,
      },
      failOn,
      formats: chosenFormats,
      baseline,
      // An MCP profile registers its clients (CIMD where offered, else RFC 7591) without --register.
      register: v.register === true || (isMcpProfile(profile) && v.target.length > 0),
      user,
    };
    const targets = v.target;
    if (targets.length > 1) return runSeveral(targets, resolve(v.report), settings);

    let loaded: Loaded;
    let embedded: EmbeddedReference | undefined;
    try {
      if (targets[0] !== undefined) loaded = await loadOne(targets[0], settings);
      else {
        const legacyClient = needsLegacyClient(v.flaw, scenarios);
        if (legacyClient) console.log('idp-conformance: the legacy client is seeded for the planted flaw');
        embedded = await startEmbeddedReference({
          flaws: v.flaw.filter(isFlawName),
          variants,
          ...(legacyClient ? { legacyClient } : {}),
          ...(v['oauth-only'] ? { oauthOnly: true } : {}),
          ...(testUserCount > 1 ? { users: testUsers(testUserCount) } : {}),
          ...(slowMs === undefined ? {} : { slowMs }),
          ...codeLifetimeOption(v['code-lifetime']),
        });
        const config = validateConfig(embedded.target);
        loaded = { config: user ? { ...config, user } : config, source: 'embedded', location: embedded.issuer };
      }
    } catch (error) {
      if (error instanceof TargetUnreachableError) {
        // An MCP server's URL that does not answer: as an unreachable issuer.
        console.error(`idp-conformance run: the target is unreachable: ${error.message}`);
        return 3;
      }
      if (!(error instanceof ConfigError)) throw error;
      console.error(`idp-conformance run: ${error.message}`);
      return 2;
    }
    try {
      return (await runTarget(loaded, resolve(v.report), settings)).code;
    } finally {
      await embedded?.server.close();
    }
  },
};
