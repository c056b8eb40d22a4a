/** Picks the login driver the target config asks for: auto (the default), form or browser. */
import type { BrowserContext } from 'playwright-core';
import type { TargetConfig } from '../config/load.ts';
import { HarnessError } from '../model/failures.ts';
import type { HttpClient } from '../http/client.ts';
import type { OriginPolicy } from '../http/origin.ts';
import type { LoginWalk } from '../model/results.ts';
import { AutoLoginDriver } from './auto.ts';
import { BrowserLoginDriver, type BrowserLoginOptions, type EmptiedContexts } from './browser.ts';
import type { WalkRecorder } from './browser-requests.ts';
import type { LoginDriver } from './driver.ts';
import { FormLoginDriver } from './form.ts';
import type { BrowserState, LoginSession } from './session.ts';
import type { BrowserPages } from './walk-settings.ts';

/** What a scenario's run offers a driver besides HTTP: the browser, evidence, the time limit. */
export interface DriverEnvironment {
  /** Why there is no browser (no Chromium found), or undefined when there is one. */
  browserUnavailable?: string;
  /** A fresh browser context (from a session's state when given), closed when the scenario ends at the latest. */
  newBrowserContext(state?: BrowserState): Promise<BrowserContext>;
  /**
   * Contexts for fresh walks that the walks empty and give back (cookies and storage cleared): a fresh session without
   * the cost of a new context. Without them every fresh walk opens a new context.
   */
  emptiedBrowserContexts?: EmptiedContexts;
  /** The run's shared IdP session (AuthorizeOptions.session "shared"); without one, "shared" is fresh. */
  session?: LoginSession;
  /** The run's browser context for that session (opened on first use, closed by the run). */
  sharedBrowserContext?: () => Promise<BrowserContext>;
  recorder: WalkRecorder;
  signal?: AbortSignal;
  log(message: string): void;
  /** Per navigation and per required browser step. */
  timeoutMs: number;
  /** Where the browser may go (docs/security.md). */
  origins?: OriginPolicy;
  /** Told of every login walk when it ends: the driver(s) it used and why (report.json's `walks`). */
  noteWalk?: (walk: LoginWalk) => void;
  /** The run's memory of pages that needed the browser (the auto driver): later walks go to it at once there. */
  browserPages?: BrowserPages;
  /** A walk goes on in the browser (the auto driver): the scenario gets the browser's time limit. */
  onBrowser?: () => void;
}

export type LoginDriverFactory = (http: HttpClient, config: TargetConfig, env: DriverEnvironment) => LoginDriver;

function user(config: TargetConfig): { username: string; password: string } {
  if (!config.user)
    throw new HarnessError('no user is configured (user.username and user.password), so nobody can log in');
  return config.user;
}

/** The browser's part of a driver's options: contexts, evidence, limits, origins (and the config's steps). */
function browserPart(config: TargetConfig, env: DriverEnvironment) {
  return {
    newContext: (state?: BrowserState) => env.newBrowserContext(state),
    ...(env.emptiedBrowserContexts ? { emptied: env.emptiedBrowserContexts } : {}),
    ...(config.login.steps ? { steps: config.login.steps } : {}),
    recorder: env.recorder,
    timeoutMs: env.timeoutMs,
    log: env.log,
    ...(env.signal ? { signal: env.signal } : {}),
    ...(env.origins ? { origins: env.origins } : {}),
    ...(config.login.loadAssets ? { loadAssets: true } : {}),
    ...(env.noteWalk ? { onWalk: env.noteWalk } : {}),
  } satisfies Partial<BrowserLoginOptions>;
}

/**
 * The browser driver, with the config's steps whichever driver the other scenarios use (the form and auto drivers'
 * configs may carry steps for the browser scenarios), else the shared page walk.
 */
export function browserLoginDriver(config: TargetConfig, env: DriverEnvironment): BrowserLoginDriver {
  if (env.browserUnavailable)
    throw new HarnessError(`the browser login driver needs Chromium: ${env.browserUnavailable}`);
  const { username, password } = user(config);
  return new BrowserLoginDriver({
    ...browserPart(config, env),
    username,
    password,
    ...(env.session ? { sharedSession: env.session } : {}),
    ...(env.sharedBrowserContext ? { sharedContext: env.sharedBrowserContext } : {}),
  });
}

export const defaultLoginDriver: LoginDriverFactory = (http, config, env) => {
  if (config.login.driver === 'browser') return browserLoginDriver(config, env);
  const { username, password } = user(config);
  const form = {
    http,
    username,
    password,
    usernameField: config.login.usernameField,
    passwordField: config.login.passwordField,
    ...(env.session ? { sharedSession: env.session } : {}),
    ...(env.noteWalk ? { onWalk: env.noteWalk } : {}),
  };
  if (config.login.driver === 'form') return new FormLoginDriver(form);
  return new AutoLoginDriver({
    ...form,
    browser: { ...browserPart(config, env), usernameField: form.usernameField, passwordField: form.passwordField },
    ...(env.browserUnavailable ? { browserUnavailable: env.browserUnavailable } : {}),
    ...(env.browserPages ? { memory: env.browserPages } : {}),
    ...(env.onBrowser ? { onBrowser: env.onBrowser } : {}),
  });
};
