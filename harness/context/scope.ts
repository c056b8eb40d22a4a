/**
 * What building a scenario's ctx starts from and hands back: the input (the run: its plan, target,
 * clients, browser, session and store; the scenario, its level, seed and limits), the scope the builders share
 * (evidence, findings, log, activity, screenshots paused or not, walks), and the state the runner
 * keeps (ContextState).
 */
import type { BrowserContext } from 'playwright-core';
import type { CimdPublisher } from '../cimd/server.ts';
import type { Client, TargetConfig } from '../config/load.ts';
import type { OriginPolicy } from '../http/origin.ts';
import type { TargetTraffic } from '../http/traffic.ts';
import type { BrowserPageMemory } from '../login/auto.ts';
import type { BrowserHost } from '../login/chromium.ts';
import type { LoginDriverFactory } from '../login/index.ts';
import type { LoginSession } from '../login/session.ts';
import type { ClientRole } from '../model/requirements.ts';
import type { ProfileName } from '../model/results.ts';
import type { Target } from '../target/target.ts';
import type { ScreenshotStore } from './screenshots.ts';
import type { Activity } from './activity.ts';
import type { CheckFailure } from '../model/failures.ts';
import type { Recorder } from '../http/recorder.ts';
import type { RequirementRef } from '../model/requirements.ts';
import type { Finding, Level, LoginWalk, ResolvedRequirement } from '../model/results.ts';
import type { Scenario, ScenarioContext } from '../scenario/scenario.ts';

export interface ContextInput {
  /** The run: its plan (run/plan.ts), the target, clients, browser, shared session, screenshots, origins, traffic. */
  run: ScenarioRun;
  scenario: Scenario;
  level: Level;
  /** The scenario's requirements as resolved for this profile and its roles. */
  requirements: readonly ResolvedRequirement[];
  /** The scenario's own seed (scenarioSeed). */
  seed: number;
  recorder: Recorder;
  signal: AbortSignal;
  /** A walk went on in the browser (the auto driver): the scenario gets the browser's time limit. */
  onBrowserWalk?: () => void;
  /** The scenario is about to wait `ms` (ctx.waits.wait): its time limit grows by as much. */
  onWait?: (ms: number) => void;
  /** The scenario's time limit (ms). */
  timeLimitMs?: number;
  /** A property's time budget (ms) when it sets none: what the scenario has used before it is taken off. */
  propertyBudgetMs?: number;
  /** Decides failed/warning for a failure (by the requirement it names). */
  statusOf: (failure: CheckFailure) => Finding['status'];
  /** The scenario's requirement (declared by the scenario), or a HarnessError naming the mistake. */
  declared: (ref: RequirementRef) => ResolvedRequirement;
}

export interface ContextState {
  ctx: ScenarioContext;
  findings: Finding[];
  log: string[];
  activity: Activity;
  /** The login walks the scenario made (report.json's `walks`). */
  walks: LoginWalk[];
  /** Closes what the scenario opened (browser contexts); the runner calls it when the scenario ends. */
  dispose(): Promise<void>;
}

export type Evidence = Recorder['evidence'][number];

/** What the steps below share: the input, the scenario's evidence, findings, log and activity. */
export interface Scope {
  input: ContextInput;
  recorder: Recorder;
  findings: Finding[];
  log: string[];
  activity: Activity;
  /** When the context was created (performance.now()): a property's default budget counts from here. */
  started: number;
  /**
   * Screenshots are paused while a property's cases run (a case that passes keeps no evidence, so its screenshots would
   * be files no report shows); `skipped` counts the ones not taken. A counterexample is run once more to take them.
   */
  shots: { paused: boolean; skipped: number };
  /** The login walks made so far. */
  walks: LoginWalk[];
}

/**
 * The run without its probe: what every scenario's ctx is built from (ContextInput.run). The plan, whole and frozen;
 * its target, clients and origins by name too (the same objects, for the context's readers); and the handles that
 * change as the run goes (LiveRun).
 */
export interface ScenarioRun extends LiveRun {
  plan: ScenarioPlan;
  target: Target;
  clients: Readonly<Partial<Record<ClientRole, Client>>>;
  origins: OriginPolicy;
}

/** What a scenario's ctx reads of the run's plan: a part of run/plan.ts's TargetPlan, which the run passes whole. */
export interface ScenarioPlan {
  readonly config: TargetConfig;
  readonly profile: ProfileName;
  readonly seed: number;
  readonly runs: number;
  /** Whether runs was given: then it overrides every property's own run count. */
  readonly runsGiven: boolean;
  /** --timeout or timeouts.scenarioMs when given: taken as is (no browser factor). */
  readonly explicitTimeoutMs: number | undefined;
  /** The scenario limit before any browser factor: explicitTimeoutMs, else the default. */
  readonly timeoutMs: number;
  readonly requestTimeoutMs: number;
  /** Whether scenarios may wait out a lifetime (--with-waits, timeouts.withWaits): ctx.waits. */
  readonly withWaits: boolean;
  readonly loginDriver: LoginDriverFactory;
  readonly fetch: typeof fetch | undefined;
}

/** What changes as a run goes, made once per run (openRun) and kept outside the plan. */
export interface LiveRun {
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
  /** The run's traffic to the target: an outage mid-run becomes one finding (harness/http/traffic.ts). */
  traffic: TargetTraffic;
  /** The run's Client ID Metadata Document listener (harness/cimd/), when the run has one: ctx.cimd. */
  cimd?: CimdPublisher | undefined;
}

/** A browser context opened on first use (again after a failed opening) and closed with the run. */
export interface LazyContext {
  get(): Promise<BrowserContext>;
  close(): Promise<void>;
}
