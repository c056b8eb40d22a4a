/**
 * What every scenario of a run shares: the runner's options and outcome, the defaults, the run's seed
 * and each scenario's seed derived from it, and the options resolved once (resolveRun) into the run's
 * clients, time limits, origins, browser, login session, screenshot store and traffic, with the part
 * of a scenario's context that is the same for all of them (sharedContextInput).
 */
import type { BrowserContext } from 'playwright-core';
import { type Client, type TargetConfig, resolveClients } from './config.ts';
import type { HttpClient } from './http.ts';
import { BrowserPageMemory } from './login/auto.ts';
import { BrowserHost } from './login/chromium.ts';
import { type DriverEnvironment, type LoginDriverFactory, defaultLoginDriver } from './login/index.ts';
import { LoginSession } from './login/session.ts';
import { OriginPolicy } from './origin.ts';
import type { Redactor } from './redact.ts';
import type { ClientRole, LinkOptions } from './requirements.ts';
import type { ProfileName, ScenarioResult } from './results.ts';
import type { Scenario } from './scenario.ts';
import { ScreenshotStore } from './screenshots.ts';
import type { Shard } from './shard.ts';
import type { Target } from './target.ts';
import { type Outage, TargetTraffic } from './traffic.ts';

export interface RunnerOptions {
  scenarios: readonly Scenario[];
  config: TargetConfig;
  target: Target;
  redactor: Redactor;
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
  only?: string[];
  skip?: string[];
  /** Run only this shard's part of the selection (`--shard i/n`). */
  shard?: Shard;
  scenarioTimeoutMs?: number;
  requestTimeoutMs?: number;
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
  fetch?: typeof fetch;
  /** Roles the IdP refused to register (harness/registration/session.ts): their scenarios skip with the reason. */
  refusedRoles?: ReadonlyMap<ClientRole, string>;
}

export interface RunOutcome {
  results: ScenarioResult[];
  seed: number;
  runs: number;
  notices: string[];
  /** The target stopped answering mid-run and never answered again (harness/traffic.ts). */
  outage?: Outage;
  /** Ids of the selected scenarios that need a login (requires.user): the run's core flows. */
  needsLogin: string[];
}

export const DEFAULTS = { concurrency: 4, runs: 50, scenarioTimeoutMs: 30_000, requestTimeoutMs: 10_000 } as const;

export function randomSeed(): number {
  return Math.floor(Math.random() * 0x7fffffff);
}

/** A scenario's own seed: FNV-1a over the run seed and the id, so `--only id` replays it. */
export function scenarioSeed(runSeed: number, id: string): number {
  let h = 0x811c9dc5;
  for (const ch of `${runSeed}:${id}`) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193);
  return (h >>> 0) & 0x7fffffff;
}

/** What every scenario of a run shares: the options resolved once, with the run's browser, session and store. */
export interface Run {
  options: RunnerOptions;
  config: TargetConfig;
  target: Target;
  redactor: Redactor;
  profile: ProfileName;
  seed: number;
  runs: number;
  runsGiven: boolean;
  clients: Partial<Record<ClientRole, Client>>;
  /** timeouts.scenarioMs or --timeout when given: taken as is (no browser factor). */
  explicitTimeoutMs: number | undefined;
  timeoutMs: number;
  requestTimeoutMs: number;
  loginDriver: LoginDriverFactory;
  origins: OriginPolicy;
  browser: BrowserHost;
  /**
   * One IdP session for the run: walks that ask for it ("shared") reuse a sign-in. None when the config turns sharing
   * off (login.shareSession false): every "shared" walk then starts fresh.
   */
  session: LoginSession | undefined;
  /** The browser driver's context for that session, for the whole run (its tabs reused): opened on first use. */
  sharedBrowserContext: LazyContext;
  /** The auto driver's memory of pages that needed the browser, for the run. */
  browserPages: BrowserPageMemory;
  screenshots: ScreenshotStore;
  /** The run's traffic to the target: an outage mid-run becomes one finding (harness/traffic.ts). */
  traffic: TargetTraffic;
  /** The capability probe (see gate), one per client role. */
  probe: (role: ClientRole) => Promise<string | undefined>;
}

/** A browser context opened on first use (again after a failed opening) and closed with the run. */
export interface LazyContext {
  get(): Promise<BrowserContext>;
  close(): Promise<void>;
}

function lazyContext(browser: BrowserHost): LazyContext {
  let opened: Promise<BrowserContext> | undefined;
  return {
    get() {
      if (!opened) {
        const opening = browser.newContext();
        opened = opening;
        opening.catch(() => {
          if (opened === opening) opened = undefined; // a later walk may try again
        });
      }
      return opened;
    },
    async close() {
      await opened?.then((c) => c.close()).catch(() => undefined);
    },
  };
}

/** Step 1: the options resolved against the config and the defaults; the run's browser, session and store made. */
export function resolveRun(options: RunnerOptions): Omit<Run, 'probe'> {
  const { config, target } = options;
  const explicitTimeoutMs = options.scenarioTimeoutMs ?? config.timeouts?.scenarioMs;
  const browser = options.browser ?? new BrowserHost();
  return {
    options,
    config,
    target,
    redactor: options.redactor,
    profile: options.profile ?? 'spec',
    seed: options.seed ?? randomSeed(),
    runs: options.runs ?? DEFAULTS.runs,
    runsGiven: options.runs !== undefined,
    clients: resolveClients(config, target.kind.protocol),
    explicitTimeoutMs,
    timeoutMs: explicitTimeoutMs ?? DEFAULTS.scenarioTimeoutMs,
    requestTimeoutMs: options.requestTimeoutMs ?? config.timeouts?.requestMs ?? DEFAULTS.requestTimeoutMs,
    loginDriver: options.loginDriver ?? defaultLoginDriver,
    origins: target.origins ?? new OriginPolicy({ issuer: config.issuer, allowedOrigins: config.allowedOrigins ?? [] }),
    browser,
    session: config.login.shareSession === false ? undefined : new LoginSession(),
    sharedBrowserContext: lazyContext(browser),
    browserPages: new BrowserPageMemory(),
    screenshots: new ScreenshotStore(options.reportDir),
    traffic: TargetTraffic.afterDiscovery(),
  };
}

/** What createContext takes that is the same for every scenario of the run. */
export function sharedContextInput(run: Omit<Run, 'probe'>) {
  const { config, options } = run;
  return {
    target: run.target,
    config,
    clients: run.clients,
    profile: run.profile,
    runs: run.runs,
    runsGiven: run.runsGiven,
    runSeed: run.seed,
    requestTimeoutMs: run.requestTimeoutMs,
    browser: run.browser,
    screenshots: run.screenshots,
    origins: run.origins,
    traffic: run.traffic,
    browserPages: run.browserPages,
    ...(run.session ? { session: run.session, sharedBrowserContext: run.sharedBrowserContext.get } : {}),
    ...(config.limits ? { limits: config.limits } : {}),
    loginDriver: (http: HttpClient, env: DriverEnvironment) => run.loginDriver(http, config, env),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  };
}
