/** Builds the ctx one scenario runs with (harness/scenario.ts describes it). */
import * as fc from 'fast-check';
import type { BrowserContext, Page } from 'playwright-core';
import type { Client, TargetConfig } from './config.ts';
import { CheckFailure, HarnessError, PreconditionError, SkipSignal } from './failures.ts';
import { createFlows } from './flows.ts';
import { HttpClient, type Params, Recorder } from './http.ts';
import { JwtTools } from './jwt.ts';
import type { BrowserHost } from './login/chromium.ts';
import type { LoginDriver } from './login/driver.ts';
import { type DriverEnvironment, browserLoginDriver } from './login/index.ts';
import { createPkce, randomToken, s256 } from './pkce.ts';
import type { ClientRole, RequirementRef } from './requirements.ts';
import type { Finding, Level, ProfileName, ResolvedRequirement } from './results.ts';
import type { AuthorizeResult, Scenario, ScenarioBrowser, ScenarioContext } from './scenario.ts';
import type { ScreenshotStore } from './screenshots.ts';
import type { Target } from './target.ts';

export interface ContextInput {
  scenario: Scenario;
  target: Target;
  config: TargetConfig;
  clients: Partial<Record<ClientRole, Client>>;
  profile: ProfileName;
  level: Level;
  /** The scenario's requirements as resolved for this profile and its roles. */
  requirements: readonly ResolvedRequirement[];
  seed: number;
  /** The run's --runs, or the default when it gave none. */
  runs: number;
  /** Whether --runs was given: then it overrides every property's own run count. */
  runsGiven: boolean;
  runSeed: number;
  recorder: Recorder;
  signal: AbortSignal;
  requestTimeoutMs: number;
  loginDriver: (http: HttpClient, env: DriverEnvironment) => LoginDriver;
  /** The run's Chromium (launched on first use). */
  browser: BrowserHost;
  screenshots: ScreenshotStore;
  /** Decides failed/warning for a failure (by the requirement it names). */
  statusOf: (failure: CheckFailure) => Finding['status'];
  /** The scenario's requirement (declared by the scenario), or a HarnessError naming the mistake. */
  declared: (ref: RequirementRef) => ResolvedRequirement;
  fetch?: typeof fetch;
}

export interface ContextState {
  ctx: ScenarioContext;
  findings: Finding[];
  log: string[];
  /** Closes what the scenario opened (browser contexts); the runner calls it when the scenario ends. */
  dispose(): Promise<void>;
}

/**
 * The options that replay a scenario's properties exactly: the run seed (the scenario's own seed
 * is derived from it and the id) and --runs when the run gave it (else each property's default).
 */
export function replayOptions(input: Pick<ContextInput, 'runSeed' | 'runs' | 'runsGiven'>, id: string): string {
  return `--seed ${input.runSeed}${input.runsGiven ? ` --runs ${input.runs}` : ''} --only ${id}`;
}

const MAX_SHOWN = 2000;
const clip = (text: string): string => (text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}… (${text.length - MAX_SHOWN} more characters)` : text);

export function createContext(input: ContextInput): ContextState {
  const { scenario, target, config, clients, recorder } = input;
  const findings: Finding[] = [];
  const log: string[] = [];
  const http = new HttpClient({
    recorder,
    signal: input.signal,
    requestTimeoutMs: input.requestTimeoutMs,
    encoding: config.tokenRequestEncoding,
    ...(target.endpoints.token ? { tokenEndpoint: target.endpoints.token } : {}),
    ...(input.fetch ? { fetch: input.fetch } : {}),
  });
  const opened = new Set<BrowserContext>();
  let disposed = false;
  const newBrowserContext = async (): Promise<BrowserContext> => {
    if (disposed) throw new HarnessError(`scenario ${scenario.id} has ended; no browser context can be opened`);
    const context = await input.browser.newContext();
    opened.add(context);
    context.on('close', () => opened.delete(context));
    return context;
  };
  const screenshot = async (page: Page, label: string): Promise<void> => {
    try {
      const path = await input.screenshots.save(scenario.id, label, await page.screenshot({ type: 'png', timeout: 5_000 }));
      recorder.add({ kind: 'screenshot', label, path });
    } catch (error) {
      log.push(`screenshot "${label}" not taken: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    }
  };
  const env: DriverEnvironment = {
    ...(input.browser.unavailable ? { browserUnavailable: input.browser.unavailable } : {}),
    newBrowserContext,
    recorder: { screenshot, transcript: (e) => recorder.add(e) },
    signal: input.signal,
    log: (message) => { log.push(message); },
    timeoutMs: input.requestTimeoutMs,
  };
  let driver: LoginDriver | undefined;
  const login = (): LoginDriver => (driver ??= input.loginDriver(http, env));
  const client = (role: ClientRole): Client => {
    const c = clients[role];
    if (!c) throw new HarnessError(`scenario ${scenario.id} uses client role "${role}" but does not declare it in requires.roles (clients.${role} is not configured)`);
    return c;
  };
  const authorizationUrl: ScenarioContext['authorizationUrl'] = (role, params = {}) => {
    const c = client(role);
    const endpoint = target.endpoints.authorization;
    if (!endpoint) throw new PreconditionError('the discovery document has no authorization_endpoint');
    // The configured authorizationParams (target, then client) come before the scenario's own.
    const merged: Params = {
      response_type: 'code', client_id: c.clientId, redirect_uri: c.redirectUri, scope: c.scope || undefined, state: randomToken(),
      ...c.authorizationParams, ...params,
    };
    // A fresh nonce on every OpenID Connect request: some IdPs require it and OIDC Core §3.1.2.1
    // always allows it. A scenario that must send none passes `nonce: undefined`.
    if (!Object.hasOwn(params, 'nonce') && (merged.scope ?? '').split(' ').includes('openid')) merged.nonce = randomToken();
    const request = Object.fromEntries(Object.entries(merged).filter((e): e is [string, string] => e[1] !== undefined));
    const url = new URL(endpoint);
    for (const [k, v] of Object.entries(request)) url.searchParams.set(k, v);
    return { url: url.href, request };
  };
  /** ctx.authorize through a given driver. */
  const authorizeWith = (driverOf: () => LoginDriver): ScenarioContext['authorize'] => async (role, params: Params = {}, options = {}): Promise<AuthorizeResult> => {
    const { url, request } = authorizationUrl(role, params);
    const stopAt = [request.redirect_uri, client(role).redirectUri].filter((u): u is string => !!u);
    const outcome = await driverOf().authorize(url, stopAt, options);
    return { ...outcome, request };
  };
  const base: Omit<ScenarioContext, 'flows'> = {
    id: scenario.id,
    target,
    profile: input.profile,
    level: input.level,
    req: scenario.req,
    applies(requirement) {
      return input.declared(requirement).applies;
    },
    seed: input.seed,
    runs: input.runs,
    clients,
    client,
    ...(config.user ? { user: config.user } : {}),
    http,
    get login() {
      return login();
    },
    authorizationUrl,
    authorize: authorizeWith(login),
    get browser() {
      return browser();
    },
    pkce: { create: createPkce, s256 },
    random: randomToken,
    get jwt() {
      return jwt;
    },
    evidence: {
      add: (e) => recorder.add(e),
      note: (text, label) => recorder.add({ kind: 'note', text, ...(label ? { label } : {}) }),
    },
    log: (message) => { log.push(message); },
    signal: input.signal,
    async softly(check, options = {}) {
      try {
        await check();
        return true;
      } catch (error) {
        if (!(error instanceof CheckFailure)) throw error;
        const failure = options.requirement && !error.requirement ? new CheckFailure(error.message, { requirement: options.requirement, kind: error.kind }) : error;
        findings.push({
          status: input.statusOf(failure), message: failure.message, failureKind: failure.kind,
          ...(failure.requirement ? { requirement: failure.requirement.label } : {}),
        });
        return false;
      }
    },
    warn(message, kind = 'refused-wrongly') {
      findings.push({ status: 'warning', message, failureKind: kind });
    },
    skip(reason) {
      throw new SkipSignal(reason);
    },
    async property(arbitrary, predicate, options = {}) {
      const runs = input.runsGiven ? input.runs : options.runs ?? input.runs;
      const before = recorder.evidence.length;
      let failingRun: typeof recorder.evidence = [];
      let harnessError: unknown;
      // Runs where the target answered HTTP 5xx: its own finding, never the property's counterexample.
      const serverErrors: { status: number; request: string; evidence: typeof recorder.evidence }[] = [];
      const details = await fc.check(fc.asyncProperty(arbitrary, async (value) => {
        if (harnessError) return true;
        const start = recorder.evidence.length;
        try {
          await predicate(value);
        } catch (error) {
          if (!(error instanceof CheckFailure)) {
            harnessError ??= error; // not a counterexample: stop judging and report the error
            return true;
          }
          const run = recorder.evidence.slice(start);
          const crashed = run.find((e) => e.kind === 'http' && e.response !== undefined && e.response.status >= 500);
          if (crashed?.kind === 'http') {
            serverErrors.push({ status: crashed.response!.status, request: `${crashed.request.method} ${crashed.request.url.split('?')[0]}${crashed.label ? ` (${crashed.label})` : ''}`, evidence: run });
            return true;
          }
          failingRun = run;
          throw error;
        } finally {
          recorder.evidence.length = start;
        }
      }), { seed: input.seed, numRuns: runs, endOnFailure: false });
      if (harnessError) throw harnessError;
      recorder.evidence.length = before;
      if (serverErrors.length) {
        const first = serverErrors[0]!;
        recorder.evidence.push(...first.evidence);
        const statuses = [...new Set(serverErrors.map((e) => e.status))].join(', ');
        findings.push({
          status: 'warning', failureKind: 'refused-wrongly',
          message: `the target failed with HTTP 5xx (${statuses}) in ${serverErrors.length} of ${runs} runs of ${options.label ?? 'the property'}, first on ${first.request}; a server error is no verdict on the property, but a request the client could send should get a 4xx answer (RFC 9110 §15.6).`,
        });
      }
      if (!details.failed) return;
      recorder.evidence.push(...failingRun);
      const value = details.counterexample?.[0];
      const shown = details.counterexample ? clip(options.show ? options.show(value as never) : fc.stringify(value)) : '(none)';
      recorder.add({
        kind: 'counterexample',
        ...(options.label ? { label: options.label } : {}),
        seed: input.seed,
        runs,
        ...(details.counterexamplePath ? { path: details.counterexamplePath } : {}),
        value: shown,
        replay: replayOptions(input, scenario.id),
      });
      const inner = details.errorInstance instanceof CheckFailure ? details.errorInstance : undefined;
      const why = inner?.message ?? (details.interrupted ? 'the property was interrupted' : 'the property failed');
      throw new CheckFailure(`${why} (counterexample ${shown}, found within ${details.numRuns} run${details.numRuns === 1 ? '' : 's'})`, {
        ...(inner?.requirement ? { requirement: inner.requirement } : {}), kind: inner?.kind ?? 'accepted',
      });
    },
  };
  const jwt = new JwtTools(http, target);
  let browserTools: ScenarioBrowser | undefined;
  const browser = (): ScenarioBrowser => {
    if (!scenario.requires?.browser) throw new HarnessError(`scenario ${scenario.id} uses ctx.browser but does not declare requires.browser`);
    if (browserTools) return browserTools;
    const driver = browserLoginDriver(config, env);
    const authorize = authorizeWith(() => driver);
    const page = async (): Promise<Page> => (await newBrowserContext()).newPage();
    // The same ctx with the browser as its login driver (a prototype view: spreading would run base's getters).
    const view = Object.create(base, { login: { value: driver }, authorize: { value: authorize } }) as typeof base;
    browserTools = { login: driver, authorize, flows: createFlows(view), newPage: page, screenshot };
    return browserTools;
  };
  const ctx: ScenarioContext = Object.assign(base, { flows: createFlows(base) });
  const dispose = async (): Promise<void> => {
    disposed = true;
    await Promise.all([...opened].map((c) => c.close().catch(() => undefined)));
  };
  return { ctx, findings, log, dispose };
}
