/**
 * What every scenario of a run shares: the runner's outcome, each scenario's seed derived from the run's,
 * and the run (resolveRun): the plan (run-plan.ts) with the target's clients, origins, browser, login
 * session, screenshot store and traffic, which every scenario's context is built from (ContextInput.run).
 */
import type { BrowserContext } from 'playwright-core';
import { type Client, resolveClients } from '../config/load.ts';
import { BrowserPageMemory } from '../login/auto.ts';
import { BrowserHost } from '../login/chromium.ts';
import { LoginSession } from '../login/session.ts';
import { OriginPolicy } from '../http/origin.ts';
import type { ClientRole } from '../scenario/requirements.ts';
import type { ScenarioResult } from '../scenario/results.ts';
import type { RunPlan } from './plan.ts';
import { ScreenshotStore } from '../context/screenshots.ts';
import type { Target } from '../target/target.ts';
import { type Outage, TargetTraffic } from '../http/traffic.ts';

export interface RunOutcome {
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

/** What every scenario of a run shares: the plan, with the run's target, clients, browser, session and store. */
export interface Run extends RunShared {
  /** The capability probe (see gate), one per client role. */
  probe: (role: ClientRole) => Promise<string | undefined>;
}

/** The run without its probe: what resolveRun makes and every scenario's ctx is built from (ContextInput.run). */
export interface RunShared {
  plan: RunPlan;
  target: Target;
  clients: Partial<Record<ClientRole, Client>>;
  /** Roles the IdP refused to register (harness/registration/session.ts): their scenarios skip with the reason. */
  refusedRoles: ReadonlyMap<ClientRole, string> | undefined;
  /** Registered roles whose scope the registration response did not state (Client.scopeGuessed). */
  guessedScopes: ReadonlySet<ClientRole>;
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
  /** The run's traffic to the target: an outage mid-run becomes one finding (harness/http/traffic.ts). */
  traffic: TargetTraffic;
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

/** Step 1: the run's browser, session, store and traffic made for the plan and its target. */
export function resolveRun(
  plan: RunPlan,
  target: Target,
  refusedRoles?: ReadonlyMap<ClientRole, string>,
  guessedScopes: ReadonlySet<ClientRole> = new Set(),
): RunShared {
  const { config } = plan;
  const browser = plan.browser ?? new BrowserHost();
  return {
    plan,
    target,
    clients: resolveClients(config, target.kind.protocol, guessedScopes),
    refusedRoles,
    guessedScopes,
    origins: target.origins ?? new OriginPolicy({ issuer: config.issuer, allowedOrigins: config.allowedOrigins ?? [] }),
    browser,
    session: config.login.shareSession === false ? undefined : new LoginSession(),
    sharedBrowserContext: lazyContext(browser),
    browserPages: new BrowserPageMemory(),
    screenshots: new ScreenshotStore(plan.reportDir),
    traffic: TargetTraffic.afterDiscovery(plan.stop),
  };
}
