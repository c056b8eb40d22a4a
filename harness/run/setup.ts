/**
 * What every scenario of a run shares: the runner's outcome, each scenario's seed derived from the run's, and the run:
 * the plan (plan.ts: the target, its clients, the settings) with the live handles made once (openRun: browser, login
 * session, screenshot store, traffic), which every scenario's context is built from (ContextInput.run).
 */
import type { CimdPublisher } from '../cimd/server.ts';
import type { BrowserContext } from 'playwright-core';
import { BrowserPageMemory } from '../login/auto.ts';
import { BrowserHost } from '../login/chromium.ts';
import { LoginSession } from '../login/session.ts';
import type { OriginPolicy } from '../http/origin.ts';
import type { ClientRole } from '../model/requirements.ts';
import type { ScenarioResult } from '../model/results.ts';
import type { RunPlan, TargetPlan } from './plan.ts';
import type { LazyContext, LiveRun, ScenarioRun } from '../context/scope.ts';
import { ScreenshotStore } from '../context/screenshots.ts';
import type { Target } from '../target/target.ts';
import { type Outage, type RunStop, TargetTraffic } from '../http/traffic.ts';

export interface RunOutcome {
  /** The plan the scenarios ran with (the target's kind settled): the report's target kind is its. */
  plan: TargetPlan;
  results: ScenarioResult[];
  notices: string[];
  /** The target stopped answering mid-run and never answered again (harness/http/traffic.ts). */
  outage?: Outage;
  /** Ids of the selected scenarios that need a login (requires.user): the run's core flows. */
  needsLogin: string[];
}

/** A scenario's own seed: FNV-1a over the run seed and the id, so `--only id` replays it. */
export function scenarioSeed(runSeed: number, id: string): number {
  let h = 0x811c9dc5;
  for (const ch of `${runSeed}:${id}`) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193);
  return (h >>> 0) & 0x7fffffff;
}

/** What every scenario of a run shares: the plan, the run's live handles, and the capability probe. */
export interface Run extends RunShared {
  /** The capability probe (see gate), one per client role. */
  probe: (role: ClientRole) => Promise<string | undefined>;
}

/**
 * The run without its probe: what every scenario's ctx is built from (ContextInput.run): the context's view of it
 * (context/scope.ts ScenarioRun) with the whole plan.
 */
export interface RunShared extends ScenarioRun {
  plan: TargetPlan;
  clients: TargetPlan['clients'];
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

/** The run's browser, session, store and traffic, made once for the plan (its stop: runSuite's). */
export function openRun(plan: RunPlan, stop?: RunStop, cimd?: CimdPublisher): LiveRun {
  const browser = plan.browser ?? new BrowserHost();
  return {
    ...(cimd ? { cimd } : {}),
    browser,
    session: plan.config.login.shareSession === false ? undefined : new LoginSession(),
    sharedBrowserContext: lazyContext(browser),
    browserPages: new BrowserPageMemory(),
    screenshots: new ScreenshotStore(plan.reportDir),
    traffic: TargetTraffic.afterDiscovery(stop),
  };
}

/**
 * The run as each of the config's users (`user`, then `users`): lane 0 is `run` itself; lane i acts as users[i - 1],
 * with an IdP session and a browser context of its own (a user's sign-in is never another's). Everything else (the
 * browser, the traffic, the memory of pages) is the run's. `close` closes the lanes' browser contexts.
 */
export function userLanes<R extends RunShared>(run: R): { lanes: R[]; close(): Promise<void> } {
  const { config } = run.plan;
  const opened: LazyContext[] = [];
  const lanes = [
    run,
    ...(config.user ? (config.users ?? []) : []).map((user): R => {
      const context = lazyContext(run.browser);
      opened.push(context);
      return {
        ...run,
        plan: { ...run.plan, config: { ...config, user } },
        session: config.login.shareSession === false ? undefined : new LoginSession(),
        sharedBrowserContext: context,
      };
    }),
  ];
  return {
    lanes,
    async close() {
      await Promise.all(opened.map((c) => c.close()));
    },
  };
}

/** The run for a plan: the plan with the live handles (the same handles for every plan of one run). */
export function runOf(plan: TargetPlan, live: LiveRun): RunShared {
  return { ...live, plan, target: plan.target, clients: plan.clients, origins: plan.origins };
}
