/** Builds the ctx one scenario runs with (harness/scenario.ts describes it). */
import * as fc from 'fast-check';
import type { BrowserContext, Page } from 'playwright-core';
import type { Client, TargetConfig } from './config.ts';
import { CheckFailure, HarnessError, PreconditionError, SkipSignal } from './failures.ts';
import { createFlows } from './flows.ts';
import { HttpClient, type Params, type Recorder } from './http.ts';
import { JwtTools } from './jwt.ts';
import type { Limits } from './limits.ts';
import type { OriginPolicy } from './origin.ts';
import type { BrowserHost } from './login/chromium.ts';
import { createHooks } from './hooks.ts';
import type { LoginDriver } from './login/driver.ts';
import { type DriverEnvironment, browserLoginDriver } from './login/index.ts';
import { type BrowserState, LoginSession } from './login/session.ts';
import { pushRequest, pushedAuthorizationUrl, pushedRequestOf, refusedPush, requiresPar } from './par.ts';
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
  /** The run's shared IdP session (AuthorizeOptions.session "shared"). */
  session?: LoginSession;
  /** The scenario's time limit (ms). */
  timeLimitMs?: number;
  /** A property's time budget (ms) when it sets none: what the scenario has used before it is taken off. */
  propertyBudgetMs?: number;
  screenshots: ScreenshotStore;
  /** Where requests and the browser may go (DESIGN §9). */
  origins?: OriginPolicy;
  /** Caps on responses (the config's limits). */
  limits?: Partial<Limits>;
  /** Decides failed/warning for a failure (by the requirement it names). */
  statusOf: (failure: CheckFailure) => Finding['status'];
  /** The scenario's requirement (declared by the scenario), or a HarnessError naming the mistake. */
  declared: (ref: RequirementRef) => ResolvedRequirement;
  fetch?: typeof fetch;
}

/**
 * What a scenario has under way and has finished, for the message of a timeout: login walks and
 * properties in flight (with when they started) and how many have ended.
 */
export class Activity {
  readonly #inFlight = new Map<number, { what: string; started: number }>();
  readonly #finished: string[] = [];
  #next = 0;

  async track<T>(what: string, work: () => Promise<T>): Promise<T> {
    const id = this.#next++;
    this.#inFlight.set(id, { what, started: performance.now() });
    try {
      return await work();
    } finally {
      this.#inFlight.delete(id);
      this.#finished.push(what);
    }
  }

  /** "finished: …; in flight: …" — the HTTP exchanges recorded count as finished too. */
  describe(exchanges: number): string {
    const now = performance.now();
    const counts = new Map<string, number>();
    for (const what of this.#finished) counts.set(what, (counts.get(what) ?? 0) + 1);
    const finished = [
      `${exchanges} HTTP exchange${exchanges === 1 ? '' : 's'}`,
      ...[...counts].map(([what, n]) => (n > 1 ? `${n}× ${what}` : what)),
    ];
    const inFlight = [...this.#inFlight.values()].map(
      (a) => `${a.what} (for ${Math.round((now - a.started) / 1000)} s)`,
    );
    return (
      `finished: ${finished.join(', ')}; in ` +
      `flight: ${inFlight.length ? inFlight.join(', ') : "nothing the harness tracks (the scenario's own requests)"}`
    );
  }
}

/** The share of a scenario's time limit a property may use by default (the rest is for its set-up and judgement). */
export const PROPERTY_BUDGET_SHARE = 0.6;

export interface ContextState {
  ctx: ScenarioContext;
  findings: Finding[];
  log: string[];
  activity: Activity;
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
const clip = (text: string): string =>
  text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}… (${text.length - MAX_SHOWN} more characters)` : text;

export function createContext(input: ContextInput): ContextState {
  const { scenario, target, config, clients, recorder } = input;
  const findings: Finding[] = [];
  const log: string[] = [];
  const activity = new Activity();
  const started = performance.now();
  const http = new HttpClient({
    recorder,
    signal: input.signal,
    requestTimeoutMs: input.requestTimeoutMs,
    encoding: config.tokenRequestEncoding,
    ...(input.origins ? { origins: input.origins } : {}),
    ...(input.limits ? { limits: input.limits } : {}),
    issuer: target.issuer,
    ...(target.endpoints.token ? { tokenEndpoint: target.endpoints.token } : {}),
    ...(input.fetch ? { fetch: input.fetch } : {}),
  });
  const opened = new Set<BrowserContext>();
  let disposed = false;
  const newBrowserContext = async (state?: BrowserState): Promise<BrowserContext> => {
    if (disposed) throw new HarnessError(`scenario ${scenario.id} has ended; no browser context can be opened`);
    const context = await input.browser.newContext(state);
    opened.add(context);
    context.on('close', () => opened.delete(context));
    return context;
  };
  const screenshot = async (page: Page, label: string): Promise<void> => {
    try {
      const path = await input.screenshots.save(
        scenario.id,
        label,
        await page.screenshot({ type: 'png', timeout: 5_000 }),
      );
      recorder.add({ kind: 'screenshot', label, path });
    } catch (error) {
      log.push(
        `screenshot "${label}" not taken: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
      );
    }
  };
  const env: DriverEnvironment = {
    ...(input.browser.unavailable ? { browserUnavailable: input.browser.unavailable } : {}),
    newBrowserContext,
    recorder: { screenshot, transcript: (e) => recorder.add(e), learn: (fields) => recorder.learnIssued(fields) },
    signal: input.signal,
    ...(input.origins ? { origins: input.origins } : {}),
    log: (message) => {
      log.push(message);
    },
    timeoutMs: input.requestTimeoutMs,
    ...(input.session ? { session: input.session } : {}),
  };
  let driver: LoginDriver | undefined;
  const login = (): LoginDriver => (driver ??= tracked(input.loginDriver(http, env)));
  /** The driver's walks, tracked as activity (for a timeout's message). */
  const tracked = (d: LoginDriver): LoginDriver => ({
    name: d.name,
    authorize: (url, stopAt, options) =>
      activity.track(`${d.name} login walk (${url.split('?')[0]})`, () => d.authorize(url, stopAt, options)),
    activateDevice: (activation) =>
      activity.track(`${d.name} device activation (${activation.verificationUri.split('?')[0]})`, () =>
        d.activateDevice(activation),
      ),
  });
  const client = (role: ClientRole): Client => {
    const c = clients[role];
    if (!c)
      throw new HarnessError(
        `scenario ${scenario.id} uses client role "${role}" but does not declare it in requires.roles ` +
          `(clients.${role} is not configured)`,
      );
    return c;
  };
  const authorizationUrl: ScenarioContext['authorizationUrl'] = (role, params = {}) => {
    const c = client(role);
    const endpoint = target.endpoints.authorization;
    if (!endpoint) throw new PreconditionError('the discovery document has no authorization_endpoint');
    // The configured authorizationParams (target, then client) come before the scenario's own.
    const merged: Params = {
      response_type: 'code',
      client_id: c.clientId,
      redirect_uri: c.redirectUri,
      scope: c.scope || undefined,
      state: randomToken(),
      ...c.authorizationParams,
      ...params,
    };
    // A fresh nonce on every OpenID Connect request: some IdPs require it and OIDC Core §3.1.2.1
    // always allows it. A scenario that must send none passes `nonce: undefined`.
    if (!Object.hasOwn(params, 'nonce') && (merged.scope ?? '').split(' ').includes('openid'))
      merged.nonce = randomToken();
    const request = Object.fromEntries(Object.entries(merged).filter((e): e is [string, string] => e[1] !== undefined));
    const url = new URL(endpoint);
    for (const [k, v] of Object.entries(request)) url.searchParams.set(k, v);
    return { url: url.href, request };
  };
  /** ctx.authorize through a given driver. */
  const authorizeWith =
    (driverOf: () => LoginDriver): ScenarioContext['authorize'] =>
    async (role, params: Params = {}, options = {}): Promise<AuthorizeResult> => {
      let { url, request } = authorizationUrl(role, params);
      const stopAt = [request.redirect_uri, client(role).redirectUri].filter((u): u is string => !!u);
      // RFC 9126: pushed first when asked, or when the target requires it of every request.
      if (options.par ?? requiresPar(target)) {
        const res = await pushRequest(http, target, client(role), request);
        const pushed = pushedRequestOf(res);
        if (!pushed) return { ...refusedPush(res, res.url), request };
        url = pushedAuthorizationUrl(target, client(role).clientId, pushed.requestUri);
      }
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
    loginSession: (label) => new LoginSession(label),
    hooks: createHooks(config, {
      timeoutMs: input.requestTimeoutMs,
      signal: input.signal,
      ...(input.fetch ? { fetch: input.fetch } : {}),
      note: (text) => recorder.add({ kind: 'note', text }),
    }),
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
      markDecisive: () => recorder.markDecisive(),
    },
    log: (message) => {
      log.push(message);
    },
    signal: input.signal,
    async softly(check, options = {}) {
      try {
        await check();
        return true;
      } catch (error) {
        if (!(error instanceof CheckFailure)) throw error;
        const failure =
          options.requirement && !error.requirement
            ? new CheckFailure(error.message, { requirement: options.requirement, kind: error.kind })
            : error;
        recorder.markFailure();
        findings.push({
          status: input.statusOf(failure),
          message: failure.message,
          failureKind: failure.kind,
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
      const runs = input.runsGiven ? input.runs : (options.runs ?? input.runs);
      const before = recorder.evidence.length;
      let failingRun: typeof recorder.evidence = [];
      let harnessError: unknown;
      // The time budget: the cases that fit are run and judged; the rest are not started.
      const share =
        input.propertyBudgetMs ??
        (input.timeLimitMs === undefined ? undefined : input.timeLimitMs * PROPERTY_BUDGET_SHARE);
      const left = share === undefined ? undefined : share - (performance.now() - started);
      const budgetMs = Math.max(1, Math.round(options.budgetMs ?? left ?? Number.POSITIVE_INFINITY));
      const deadline = performance.now() + budgetMs;
      let skipped = 0;
      let begun = 0;
      // Runs where the target answered HTTP 5xx: its own finding, never the property's counterexample.
      const serverErrors: { status: number; request: string; evidence: typeof recorder.evidence }[] = [];
      const details = (await activity.track(
        `property${options.label ? ` "${options.label}"` : ''} (${runs} case${runs === 1 ? '' : 's'})`,
        () =>
          fc.check(
            fc.asyncProperty(arbitrary, async (value) => {
              if (harnessError) return true;
              // Past the budget no case is started (but the first always is): it passes unjudged, and is counted as not
              // run.
              if (begun > 0 && performance.now() > deadline) {
                skipped++;
                return true;
              }
              begun++;
              const start = recorder.evidence.length;
              try {
                await predicate(value);
              } catch (error) {
                if (!(error instanceof CheckFailure)) {
                  harnessError ??= error; // not a counterexample: stop judging and report the error
                  return true;
                }
                const run = recorder.evidence.slice(start);
                const crashed = run.find(
                  (e) => e.kind === 'http' && e.response !== undefined && e.response.status >= 500,
                );
                if (crashed?.kind === 'http') {
                  serverErrors.push({
                    status: crashed.response!.status,
                    request:
                      `${crashed.request.method} ${crashed.request.url.split('?')[0]}` +
                      `${crashed.label ? ` (${crashed.label})` : ''}`,
                    evidence: run,
                  });
                  return true;
                }
                failingRun = run;
                throw error;
              } finally {
                recorder.evidence.length = start;
              }
            }),
            { seed: input.seed, numRuns: runs, endOnFailure: false },
          ),
      )) as fc.RunDetails<[typeof arbitrary extends fc.Arbitrary<infer V> ? V : never]>;
      if (harnessError) throw harnessError;
      recorder.evidence.length = before;
      if (!details.failed && skipped > 0) {
        const ran = details.numRuns - skipped;
        const what = `the property${options.label ? ` "${options.label}"` : ''}`;
        const note =
          `${what[0]!.toUpperCase()}${what.slice(1)} ran ${ran} of ${runs} case${runs === 1 ? '' : 's'} ` +
          `within its time budget of ${budgetMs} ms; those ${ran} were judged, the rest not run ` +
          '(raise timeouts.scenarioMs, or pass --runs, to run more).';
        recorder.add({ kind: 'note', label: 'property time budget', text: note });
        log.push(note);
      }
      if (serverErrors.length) {
        const first = serverErrors[0]!;
        recorder.evidence.push(...first.evidence);
        const statuses = [...new Set(serverErrors.map((e) => e.status))].join(', ');
        findings.push({
          status: 'warning',
          failureKind: 'refused-wrongly',
          message:
            `the target failed with HTTP 5xx (${statuses}) in ${serverErrors.length} of ${runs} ` +
            `run${runs === 1 ? '' : 's'} of ${options.label ?? 'the property'}, first on ${first.request}; ` +
            'a server error is no verdict on the property, but a request the client could send should get ' +
            'a 4xx answer (RFC 9110 §15.6).',
        });
      }
      if (!details.failed) return;
      recorder.evidence.push(...failingRun);
      const value = details.counterexample?.[0];
      const shown = details.counterexample
        ? clip(options.show ? options.show(value as never) : fc.stringify(value))
        : '(none)';
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
      throw new CheckFailure(
        `${why} (counterexample ${shown}, found within ${details.numRuns} run${details.numRuns === 1 ? '' : 's'})`,
        {
          ...(inner?.requirement ? { requirement: inner.requirement } : {}),
          kind: inner?.kind ?? 'accepted',
        },
      );
    },
  };
  const jwt = new JwtTools(http, target);
  let browserTools: ScenarioBrowser | undefined;
  const browser = (): ScenarioBrowser => {
    if (!scenario.requires?.browser)
      throw new HarnessError(`scenario ${scenario.id} uses ctx.browser but does not declare requires.browser`);
    if (browserTools) return browserTools;
    const driver = tracked(browserLoginDriver(config, env));
    const authorize = authorizeWith(() => driver);
    const page = async (): Promise<Page> => (await newBrowserContext()).newPage();
    const framing = { host: config.browser?.framingHost ?? '127.0.0.1', port: config.browser?.framingPort ?? 0 };
    // The same ctx with the browser as its login driver (a prototype view: spreading would run base's getters).
    const view = Object.create(base, { login: { value: driver }, authorize: { value: authorize } }) as typeof base;
    browserTools = { login: driver, authorize, flows: createFlows(view), newPage: page, screenshot, framing };
    return browserTools;
  };
  const ctx: ScenarioContext = Object.assign(base, { flows: createFlows(base) });
  const dispose = async (): Promise<void> => {
    disposed = true;
    await Promise.all([...opened].map((c) => c.close().catch(() => undefined)));
  };
  return { ctx, findings, log, activity, dispose };
}
