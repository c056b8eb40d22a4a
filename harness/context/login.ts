/**
 * The login side of a scenario's ctx: its recording HTTP client (ctx.http), the environment a login
 * driver is given (browser contexts, evidence, origins, the run's session), the driver made on first
 * use (ctx.login: its walks tracked as activity), ctx.authorize through it (flows/flows.ts's Authorizer),
 * and ctx.browser: the same ctx with the browser as its login driver, for a scenario that declares
 * requires.browser.
 */
import type { Page } from 'playwright-core';
import type { Activity } from './activity.ts';
import { authorizationUrlBuilder, clientLookup } from './authorize.ts';
import { browserContexts, screenshotTaker } from './browser.ts';
import type { ContextInput, Scope } from './scope.ts';
import type { Client } from '../config/load.ts';
import { HarnessError } from '../model/failures.ts';
import { Authorizer, type AuthorizerParts, WALK_RECORD, createFlows, walkActivity } from '../flows/flows.ts';
import { HttpClient } from '../http/client.ts';
import type { LoginDriver } from '../login/driver.ts';
import { type DriverEnvironment, browserLoginDriver } from '../login/index.ts';
import type { ClientRole } from '../model/requirements.ts';
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

/** ctx.login: a driver whose walks are tracked as activity (for a timeout's message). */
function trackedDriver(activity: Activity, d: LoginDriver): LoginDriver {
  return {
    name: d.name,
    authorize: (url, stopAt, options) =>
      activity.track(walkActivity(d.name, url), () => d.authorize(url, stopAt, options)),
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
  /** What ctx.authorize is built with (flows/flows.ts's Authorizer), but its driver. */
  authorizing: Omit<AuthorizerParts, 'driver'>;
  login: () => LoginDriver;
  /** The same driver untracked: what ctx.authorize walks with (the Authorizer tracks the walk). */
  rawLogin: () => LoginDriver;
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
    let raw: LoginDriver | undefined;
    let made: LoginDriver | undefined;
    const rawDriver = (): LoginDriver => (raw ??= browserLoginDriver(config, parts.env));
    const driver = (): LoginDriver => {
      made ??= trackedDriver(scope.activity, rawDriver());
      return made;
    };
    const { authorize } = new Authorizer({ ...parts.authorizing, driver: rawDriver });
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
  let raw: LoginDriver | undefined;
  let tracked: LoginDriver | undefined;
  const rawDriver = (): LoginDriver => (raw ??= input.run.plan.loginDriver(http, input.run.plan.config, env));
  const login = (): LoginDriver => (tracked ??= trackedDriver(scope.activity, rawDriver()));
  const client = clientLookup(input);
  const authorizationUrl = authorizationUrlBuilder(input.run.target, client);
  const record = (text: string): void => {
    scope.recorder.add({ kind: 'note', label: WALK_RECORD, text });
    scope.log.push(`${WALK_RECORD}: ${text}`);
  };
  const authorizing: Omit<AuthorizerParts, 'driver'> = {
    http,
    target: input.run.target,
    client,
    authorizationUrl,
    session: input.run.session,
    signal: input.signal,
    begin: (what) => scope.activity.begin(what),
    record,
    learn: (fields) => scope.recorder.learnIssued(fields),
  };
  const parts: LoginParts = {
    http,
    env,
    client,
    authorizationUrl,
    authorizing,
    login,
    rawLogin: rawDriver,
    screenshot,
    newBrowserContext: contexts.open,
  };
  return { parts, dispose: contexts.dispose };
}
