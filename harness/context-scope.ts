/**
 * What building a scenario's ctx starts from and hands back: the input (the run's plan, the scenario,
 * its target and clients, the run's browser, session, seeds and limits), the scope the builders share
 * (evidence, findings, log, activity, screenshots paused or not, walks), and the state the runner
 * keeps (ContextState).
 */
import type { BrowserContext } from 'playwright-core';
import type { Activity } from './context-activity.ts';
import type { Client } from './config.ts';
import type { CheckFailure } from './failures.ts';
import type { HttpClient } from './http.ts';
import type { Recorder } from './recorder.ts';
import type { BrowserHost } from './login/chromium.ts';
import type { LoginDriver } from './login/driver.ts';
import type { DriverEnvironment } from './login/index.ts';
import type { LoginSession } from './login/session.ts';
import type { BrowserPages } from './login/walk.ts';
import type { OriginPolicy } from './origin.ts';
import type { ClientRole, RequirementRef } from './requirements.ts';
import type { Finding, Level, LoginWalk, ResolvedRequirement } from './results.ts';
import type { RunPlan } from './run-plan.ts';
import type { Scenario, ScenarioContext } from './scenario.ts';
import type { ScreenshotStore } from './screenshots.ts';
import type { Target } from './target.ts';
import type { TargetTraffic } from './traffic.ts';

export interface ContextInput {
  /** The run's plan (run-plan.ts): its config, profile, seed, runs, request time limit, fetch. */
  plan: RunPlan;
  scenario: Scenario;
  target: Target;
  clients: Partial<Record<ClientRole, Client>>;
  level: Level;
  /** The scenario's requirements as resolved for this profile and its roles. */
  requirements: readonly ResolvedRequirement[];
  /** The scenario's own seed (scenarioSeed). */
  seed: number;
  recorder: Recorder;
  signal: AbortSignal;
  loginDriver: (http: HttpClient, env: DriverEnvironment) => LoginDriver;
  /** The run's Chromium (launched on first use). */
  browser: BrowserHost;
  /** The run's shared IdP session (AuthorizeOptions.session "shared"). */
  session?: LoginSession;
  /** The run's browser context for that session (its cookies carry the sign-in; opened on first use). */
  sharedBrowserContext?: () => Promise<BrowserContext>;
  /** The auto driver's memory of pages that needed the browser, for the run. */
  browserPages?: BrowserPages;
  /** A walk went on in the browser (the auto driver): the scenario gets the browser's time limit. */
  onBrowserWalk?: () => void;
  /** The scenario's time limit (ms). */
  timeLimitMs?: number;
  /** A property's time budget (ms) when it sets none: what the scenario has used before it is taken off. */
  propertyBudgetMs?: number;
  screenshots: ScreenshotStore;
  /** Where requests and the browser may go (docs/security.md). */
  origins?: OriginPolicy;
  /** The run's traffic to the target (harness/traffic.ts). */
  traffic?: TargetTraffic;
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
