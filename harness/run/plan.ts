/**
 * The run plan: every setting of one run, resolved once (planRun) from what the caller gave (the command line,
 * runConformance, a test) and the target's config, with the defaults applied here and nowhere else. It is frozen;
 * runSuite, the runner and each scenario's context read it (docs/ARCHITECTURE.md, "The run plan").
 */
import { type TargetConfig, configSecrets } from '../config/load.ts';
import { type LoginDriverFactory, defaultLoginDriver } from '../login/index.ts';
import type { BrowserHost } from '../login/chromium.ts';
import { Redactor } from '../redact/redact.ts';
import type { LinkOptions } from '../scenario/requirements.ts';
import type { ProfileName, Report, ScenarioResult } from '../scenario/results.ts';
import type { Scenario } from '../scenario/scenario.ts';
import type { Shard } from './shard.ts';
import type { RunStop } from '../http/traffic.ts';

export const DEFAULTS = { concurrency: 4, runs: 50, scenarioTimeoutMs: 30_000, requestTimeoutMs: 10_000 } as const;

/** The settings a caller may give before the target is known: all optional, resolved by resolveSettings. */
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
  /** Planted flaws the target runs with (the embedded reference's --flaw): every report names them. */
  plantedFlaws?: readonly string[];
}

/** What planRun takes: the settings, the config, the scenarios, and the run's hooks and machinery. */
export interface PlanInput extends RunSettings {
  config: TargetConfig;
  scenarios: readonly Scenario[];
  /** Where the config came from (shown in the report; default "object"). */
  source?: Report['target']['source'];
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

/** The settings with their defaults: what the command line resolves once for all its targets. */
export type ResolvedSettings = Readonly<
  Required<Pick<RunSettings, 'profile' | 'seed' | 'runs' | 'concurrency' | 'only' | 'skip' | 'plantedFlaws'>> &
    Pick<RunSettings, 'shard' | 'scenarioTimeoutMs' | 'requestTimeoutMs' | 'maxRunMs'> & {
      /** Whether runs was given: then it overrides every property's own run count. */
      runsGiven: boolean;
    }
>;

/** One run, resolved: what runSuite, the runner and every scenario's context read. Frozen. */
export type RunPlan = ResolvedSettings &
  Readonly<
    Omit<PlanInput, keyof RunSettings | 'secrets' | 'redactor' | 'loginDriver' | 'source'> & {
      source: Report['target']['source'];
      redactor: Redactor;
      loginDriver: LoginDriverFactory;
      /** --timeout or timeouts.scenarioMs when given: taken as is (no browser factor). */
      explicitTimeoutMs: number | undefined;
      /** The scenario limit before any browser factor: explicitTimeoutMs, else the default. */
      timeoutMs: number;
      requestTimeoutMs: number;
      /** The run's stop (runSuite makes it): the target unreachable, or maxRunMs reached. */
      stop?: RunStop;
    }
  >;

export function randomSeed(): number {
  return Math.floor(Math.random() * 0x7fffffff);
}

/**
 * The target-independent settings with their defaults (only these: whatever else the argument holds is left out);
 * resolving resolved settings again changes nothing.
 */
export function resolveSettings(settings: RunSettings | ResolvedSettings): ResolvedSettings {
  const runsGiven = 'runsGiven' in settings ? settings.runsGiven : settings.runs !== undefined;
  return Object.freeze({
    shard: settings.shard,
    scenarioTimeoutMs: settings.scenarioTimeoutMs,
    requestTimeoutMs: settings.requestTimeoutMs,
    maxRunMs: settings.maxRunMs,
    profile: settings.profile ?? 'spec',
    seed: settings.seed ?? randomSeed(),
    runs: settings.runs ?? DEFAULTS.runs,
    runsGiven,
    concurrency: settings.concurrency ?? DEFAULTS.concurrency,
    only: Object.freeze([...(settings.only ?? [])]),
    skip: Object.freeze([...(settings.skip ?? [])]),
    plantedFlaws: Object.freeze([...(settings.plantedFlaws ?? [])]),
  });
}

/** The run plan: the settings resolved, then what depends on the config (time limits, the redactor's secrets). */
export function planRun(input: PlanInput | (Omit<PlanInput, keyof RunSettings> & ResolvedSettings)): RunPlan {
  const { secrets, ...rest } = input;
  const { config } = input;
  const explicitTimeoutMs = input.scenarioTimeoutMs ?? config.timeouts?.scenarioMs;
  return Object.freeze({
    ...rest,
    ...resolveSettings(input),
    source: input.source ?? 'object',
    redactor: input.redactor ?? new Redactor([...configSecrets(config), ...(secrets ?? [])]),
    loginDriver: input.loginDriver ?? defaultLoginDriver,
    explicitTimeoutMs,
    timeoutMs: explicitTimeoutMs ?? DEFAULTS.scenarioTimeoutMs,
    requestTimeoutMs: input.requestTimeoutMs ?? config.timeouts?.requestMs ?? DEFAULTS.requestTimeoutMs,
  });
}

/** The same plan with another config (the one with the clients registered for the run). */
export function withConfig(plan: RunPlan, config: TargetConfig): RunPlan {
  return Object.freeze({ ...plan, config });
}
