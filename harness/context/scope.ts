/**
 * What building a scenario's ctx starts from and hands back: the input (the run: its plan, target,
 * clients, browser, session and store; the scenario, its level, seed and limits), the scope the builders share
 * (evidence, findings, log, activity, screenshots paused or not, walks), and the state the runner
 * keeps (ContextState).
 */
import type { Activity } from './activity.ts';
import type { CheckFailure } from '../scenario/failures.ts';
import type { Recorder } from './recorder.ts';
import type { RequirementRef } from '../scenario/requirements.ts';
import type { Finding, Level, LoginWalk, ResolvedRequirement } from '../scenario/results.ts';
import type { RunShared } from '../run/setup.ts';
import type { Scenario, ScenarioContext } from '../scenario/scenario.ts';

export interface ContextInput {
  /** The run: its plan (run-plan.ts), the target, clients, browser, shared session, screenshots, origins, traffic. */
  run: RunShared;
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
