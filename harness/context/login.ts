/**
 * The login side of a scenario's ctx: its recording HTTP client (ctx.http), the environment a login
 * driver is given (browser contexts, evidence, origins, the run's session), the driver made on first
 * use with its walks tracked as activity, authorize through it, and ctx.browser: the same ctx with
 * the browser as its login driver, for a scenario that declares requires.browser.
 */
import type { Page } from 'playwright-core';
import type { Activity } from './activity.ts';
import { authorizationUrlBuilder, authorizer, clientLookup } from './authorize.ts';
import { browserContexts, screenshotTaker } from './browser.ts';
import type { ContextInput, Scope } from './scope.ts';
import type { Client } from '../config/load.ts';
import { HarnessError } from '../scenario/failures.ts';
import { createFlows } from '../flows/flows.ts';
import { HttpClient } from '../http/client.ts';
import type { LoginDriver } from '../login/driver.ts';
import { type DriverEnvironment, browserLoginDriver } from '../login/index.ts';
import type { ClientRole } from '../scenario/requirements.ts';
import type { ScenarioBrowser, ScenarioContext } from '../scenario/scenario.ts';

/** ctx.http: the scenario's HTTP client, recording into its evidence within the config's origins and limits. */
function scenarioHttp(input: ContextInput): HttpClient {
  const { target, plan, origins, traffic } = input.run;
  const { config } = plan;
  return new HttpClient({
    recorder: input.recorder,
    signal: input.signal,
    requestTimeoutMs: plan.requestTimeoutMs,
    encoding: config.tokenRequestEncoding,
    origins,
    limits: config.limits,
    traffic,
    issuer: target.issuer,
    tokenEndpoint: target.endpoints.token,
    fetch: plan.fetch,
    userAgent: config.login.driver !== 'browser' ? config.login.userAgent : undefined,
  });
}

/** What a login driver is given: the browser, the evidence, the origins, the log and the run's session. */
function driverEnvironment(
  { input, recorder, log, walks }: Scope,
  contexts: Pick<ReturnType<typeof browserContexts>, 'open' | 'emptied' | 'giveBack'>,
  screenshot: DriverEnvironment['recorder']['screenshot'],
): DriverEnvironment {
  const { run } = input;
  return {
    ...(run.browser.unavailable ? { browserUnavailable: run.browser.unavailable } : {}),
    newBrowserContext: contexts.open,
    emptiedBrowserContexts: { take: contexts.emptied, giveBack: contexts.giveBack },
    recorder: { screenshot, transcript: (e) => recorder.add(e), learn: (fields) => recorder.learnIssued(fields) },
    signal: input.signal,
    origins: run.origins,
    log: (message) => {
      log.push(message);
    },
    timeoutMs: run.plan.requestTimeoutMs,
    ...(run.session ? { session: run.session, sharedBrowserContext: run.sharedBrowserContext.get } : {}),
    noteWalk: (walk) => {
      walks.push(walk);
    },
    browserPages: run.browserPages,
    ...(input.onBrowserWalk ? { onBrowser: input.onBrowserWalk } : {}),
  };
}

/** A driver whose walks are tracked as activity (for a timeout's message). */
function trackedDriver(activity: Activity, d: LoginDriver): LoginDriver {
  return {
    name: d.name,
    authorize: (url, stopAt, options) =>
      activity.track(`${d.name} login walk (${url.split('?')[0]})`, () => d.authorize(url, stopAt, options)),
    activateDevice: (activation) =>
      activity.track(`${d.name} device activation (${activation.verificationUri.split('?')[0]})`, () =>
        d.activateDevice(activation),
      ),
  };
}

/** The pieces of ctx that log in: the lazily made login driver and ctx.authorize through a driver. */
export interface LoginParts {
  http: HttpClient;
  env: DriverEnvironment;
  client: (role: ClientRole) => Client;
  authorizationUrl: ScenarioContext['authorizationUrl'];
  authorizeWith: (driverOf: () => LoginDriver) => ScenarioContext['authorize'];
  login: () => LoginDriver;
  screenshot: ScenarioBrowser['screenshot'];
  newBrowserContext: DriverEnvironment['newBrowserContext'];
}

/**
 * ctx.browser, made on first use: the same ctx with the browser as its login driver. Only a
 * scenario that declares requires.browser may use it.
 */
export function browserToolsMaker(scope: Scope, parts: LoginParts, base: () => Omit<ScenarioContext, 'flows'>) {
  const { scenario } = scope.input;
  const { config } = scope.input.run.plan;
  let tools: ScenarioBrowser | undefined;
  return (): ScenarioBrowser => {
    if (!scenario.requires?.browser)
      throw new HarnessError(`scenario ${scenario.id} uses ctx.browser but does not declare requires.browser`);
    if (tools) return tools;
    // Made on first use: a scenario that only opens pages (no sign-in) runs without a configured user.
    let made: LoginDriver | undefined;
    const driver = (): LoginDriver => {
      made ??= trackedDriver(scope.activity, browserLoginDriver(config, parts.env));
      return made;
    };
    const authorize = parts.authorizeWith(driver);
    const newPage = async (): Promise<Page> => {
      const context = await parts.newBrowserContext();
      return context.pages()[0] ?? context.newPage(); // a context opened ahead comes with a blank page
    };
    const framing = { host: config.browser?.framingHost ?? '127.0.0.1', port: config.browser?.framingPort ?? 0 };
    // The same ctx with the browser as its login driver (a prototype view: spreading would run base's getters).
    const view = Object.create(base(), { login: { get: driver }, authorize: { value: authorize } });
    tools = {
      get login() {
        return driver();
      },
      authorize,
      flows: createFlows(view),
      newPage,
      screenshot: parts.screenshot,
      framing,
    };
    return tools;
  };
}

/** The login side of ctx: browser contexts, screenshots, the driver environment, the driver, authorize. */
export function loginParts(scope: Scope) {
  const { input } = scope;
  const http = scenarioHttp(input);
  const contexts = browserContexts(input);
  const screenshot = screenshotTaker(scope);
  const env = driverEnvironment(scope, contexts, screenshot);
  let driver: LoginDriver | undefined;
  const login = (): LoginDriver =>
    (driver ??= trackedDriver(scope.activity, input.run.plan.loginDriver(http, input.run.plan.config, env)));
  const client = clientLookup(input);
  const authorizationUrl = authorizationUrlBuilder(input.run.target, client);
  const authorizeWith = authorizer(scope, http, client, authorizationUrl);
  const parts: LoginParts = {
    http,
    env,
    client,
    authorizationUrl,
    authorizeWith,
    login,
    screenshot,
    newBrowserContext: contexts.open,
  };
  return { parts, dispose: contexts.dispose };
}
