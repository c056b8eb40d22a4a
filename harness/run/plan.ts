/**
 * The run plan, built here and nowhere else (docs/ARCHITECTURE.md, "The run plan"): the settings a caller gave (one
 * type, RunSettings, for the command line and the library alike) with their defaults, the config, the selection,
 * then (planTarget) the target met: its kind settled, the clients as the runner uses them. Deeply frozen; what a run
 * changes lives beside it (setup.ts: Run).
 */
import { type Client, type TargetConfig, configSecrets, resolveClients } from '../config/load.ts';
import { OriginPolicy } from '../http/origin.ts';
import { type LoginDriverFactory, defaultLoginDriver } from '../login/index.ts';
import type { BrowserHost } from '../login/chromium.ts';
import { Redactor } from '../redact/redact.ts';
import type { ClientRole, LinkOptions } from '../model/requirements.ts';
import type { ProfileName, Report, ScenarioResult } from '../model/results.ts';
import type { ScenarioPlan } from '../context/scope.ts';
import type { Scenario } from '../scenario/scenario.ts';
import { type Target, type TargetKind, settleTarget } from '../target/target.ts';
import { resourceOrigins } from '../target/discovery.ts';
import { deepFreeze } from './freeze.ts';
import { type Selection, selectionOf } from './selection.ts';
import type { Shard } from './shard.ts';

export const DEFAULTS = { concurrency: 4, runs: 50, scenarioTimeoutMs: 30_000, requestTimeoutMs: 10_000 } as const;

/**
 * A run's settings as a caller gives them: the command line (cli/run.ts) and the library (index.ts: runConformance,
 * planConformance) alike; all optional, the defaults applied by planRun.
 */
export interface RunSettings {
  profile?: ProfileName;
  /** The run's seed (default: random); each scenario gets one derived from it and its id. */
  seed?: number;
  /**
   * Property runs (--runs): every property runs this many times. When absent each property runs
   * its own default (PropertyOptions.runs, else DEFAULTS.runs), which keeps the catalog fast.
   */
  runs?: number;
  /** Scenarios in flight at once (default 4). */
  concurrency?: number;
  only?: readonly string[];
  skip?: readonly string[];
  /** Run only this shard's part of the selection (`--shard i/n`). */
  shard?: Shard;
  /** --timeout: the per-scenario limit, taken as given (default: the config's timeouts.scenarioMs, else 30 s). */
  scenarioTimeoutMs?: number;
  requestTimeoutMs?: number;
  /**
   * --max-run-ms: the whole run's time limit (discovery to the last scenario); when it is reached the scenarios not
   * judged yet are `error` and the run is not a verdict (http/traffic.ts RunStop). Default: none (the command line
   * gives DEFAULT_MAX_RUN_MS).
   */
  maxRunMs?: number;
  /**
   * --with-waits: scenarios that wait out a lifetime (code.lifetime waits a minute or more) run; without it they are
   * skipped with the wait they need. Default: the config's timeouts.withWaits, else false.
   */
  withWaits?: boolean;
  /** Planted flaws the target runs with (the embedded reference's --flaw): every report names them. */
  plantedFlaws?: readonly string[];
  /** Lines for the report's notices, e.g. what an MCP run found before discovery (cli/mcp-target.ts). */
  notices?: readonly string[];
  /** The scenarios (the library's default: the built-in catalog; the harness never imports suites/). */
  scenarios?: readonly Scenario[];
  /** Also run these (e.g. your own scenarios next to the built-in ones). */
  extraScenarios?: readonly Scenario[];
  /** Extra secrets to redact beyond those in the config (ignored when `redactor` is given). */
  secrets?: readonly string[];
  /** The run's redactor (default: a new one with the config's secrets); pass one to redact your own output too. */
  redactor?: Redactor;
  links?: LinkOptions;
  loginDriver?: LoginDriverFactory;
  /**
   * Chromium for browser scenarios and the browser login driver. Default: one found on this
   * machine (harness/login/chromium.ts), launched on first use and closed when the run ends; a
   * host passed in is shared and left open (e.g. one browser for a whole test file).
   */
  browser?: BrowserHost;
  /** The report folder: screenshots go to its screenshots/ (default: a temporary folder). */
  reportDir?: string;
  onResult?: (result: ScenarioResult) => void;
  /** Console lines of the client registrations (registration.enabled): registered, refused, left behind. */
  registrationLog?: (line: string) => void;
  /** On SIGINT and SIGTERM, delete the registered clients before the process stops (the command line sets it). */
  guardSignals?: boolean;
  fetch?: typeof fetch;
}

/**
 * The plan before the target is met (planRun): the settings with their defaults, the config, the scenarios and the
 * selection (with what a scenario's ctx reads of it, context/scope.ts ScenarioPlan). runSuite takes it; planTarget
 * completes it.
 */
export interface RunPlan extends ScenarioPlan {
  /** Where the config came from (shown in the report; default "object"). */
  readonly source: Report['target']['source'];
  /** Every scenario the caller gave (expectedFailures are checked against their ids). */
  readonly scenarios: readonly Scenario[];
  /** --only, --skip and the shard, and the scenarios they select: computed here once, read by everyone. */
  readonly selection: Selection;
  readonly concurrency: number;
  readonly maxRunMs: number | undefined;
  readonly plantedFlaws: readonly string[];
  /** Lines for the report's notices given by the caller (RunSettings.notices). */
  readonly notices?: readonly string[];
  /** A handle, not data: it learns the run's tokens as it sees them (left unfrozen). */
  readonly redactor: Redactor;
  readonly links: LinkOptions | undefined;
  readonly browser: BrowserHost | undefined;
  readonly reportDir: string | undefined;
  readonly onResult: ((result: ScenarioResult) => void) | undefined;
  readonly registrationLog: ((line: string) => void) | undefined;
  readonly guardSignals: boolean | undefined;
}

/** The whole plan: the target met (its kind settled, the grants registered clients imply) and the clients. */
export interface TargetPlan extends RunPlan {
  readonly target: Target;
  /** The clients as scenarios use them: their default scope follows the kind (openid only for an OpenID provider). */
  readonly clients: Readonly<Partial<Record<ClientRole, Client>>>;
  /** Roles the IdP refused to register (harness/registration/session.ts): their scenarios skip with the reason. */
  readonly refusedRoles: ReadonlyMap<ClientRole, string> | undefined;
  /** Registered roles whose scope the registration response did not state (Client.scopeGuessed). */
  readonly guessedScopes: ReadonlySet<ClientRole>;
  /** Where requests may go: the target's policy (discovery), else the config's rule. */
  readonly origins: OriginPolicy;
}

/** What the run met at the target before its scenarios: the clients it registered there (harness/registration/). */
export interface Registered {
  /** The config with the registered clients in it. */
  config: TargetConfig;
  roles: readonly ClientRole[];
  refused: ReadonlyMap<ClientRole, string>;
  guessedScopes: ReadonlySet<ClientRole>;
}

export function randomSeed(): number {
  return Math.floor(Math.random() * 0x7fffffff);
}

/**
 * The plan before the target: the settings with their defaults (DEFAULTS, the profile spec, a random seed), the time
 * limits the config sets, the redactor with the config's secrets, the selection. The config is copied: the plan
 * owns (and freezes) its data, never the caller's.
 */
export function planRun(
  input: RunSettings & { config: TargetConfig; scenarios: readonly Scenario[]; source?: Report['target']['source'] },
): RunPlan {
  const config = structuredClone(input.config);
  const explicitTimeoutMs = input.scenarioTimeoutMs ?? config.timeouts?.scenarioMs;
  const scenarios = [...input.scenarios, ...(input.extraScenarios ?? [])];
  const asked = {
    only: [...(input.only ?? [])],
    skip: [...(input.skip ?? [])],
    shard: input.shard && { ...input.shard },
  };
  const plan: RunPlan = {
    config,
    source: input.source ?? 'object',
    scenarios,
    selection: selectionOf(scenarios, asked),
    profile: input.profile ?? 'spec',
    seed: input.seed ?? randomSeed(),
    runs: input.runs ?? DEFAULTS.runs,
    runsGiven: input.runs !== undefined,
    concurrency: input.concurrency ?? DEFAULTS.concurrency,
    explicitTimeoutMs,
    timeoutMs: explicitTimeoutMs ?? DEFAULTS.scenarioTimeoutMs,
    requestTimeoutMs: input.requestTimeoutMs ?? config.timeouts?.requestMs ?? DEFAULTS.requestTimeoutMs,
    maxRunMs: input.maxRunMs,
    withWaits: input.withWaits ?? config.timeouts?.withWaits ?? false,
    plantedFlaws: [...(input.plantedFlaws ?? [])],
    ...(input.notices?.length ? { notices: [...input.notices] } : {}),
    redactor: input.redactor ?? new Redactor([...configSecrets(config), ...(input.secrets ?? [])]),
    loginDriver: input.loginDriver ?? defaultLoginDriver,
    links: input.links && { ...input.links },
    browser: input.browser,
    reportDir: input.reportDir,
    onResult: input.onResult,
    registrationLog: input.registrationLog,
    guardSignals: input.guardSignals,
    fetch: input.fetch,
  };
  return deepFreeze(plan);
}

/**
 * The whole plan: the target as discovery found it, with the grants the registered clients imply and, when the run
 * settled it by behaviour (probes.ts settleKind), its kind; the clients resolved for that kind. A new frozen object:
 * the plan before it is not changed.
 */
export function planTarget(
  plan: RunPlan,
  met: { target: Target; registered?: Registered | undefined; kind?: TargetKind | undefined },
): TargetPlan {
  const { registered } = met;
  const config = registered ? structuredClone(registered.config) : plan.config;
  const target = settleTarget(met.target, { kind: met.kind, registeredRoles: registered?.roles ?? [] });
  const guessedScopes = new Set(registered?.guessedScopes ?? []);
  const origins =
    target.origins ??
    new OriginPolicy({
      issuer: config.issuer,
      allowedOrigins: [...(config.allowedOrigins ?? []), ...resourceOrigins(config)],
    });
  return deepFreeze({
    ...plan,
    config,
    target,
    clients: resolveClients(config, target.kind.protocol, guessedScopes),
    refusedRoles: registered ? new Map(registered.refused) : undefined,
    guessedScopes,
    origins,
  });
}
