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
import type { AuthorizeOptions, LoginDriver } from './login/driver.ts';
import { type DriverEnvironment, browserLoginDriver } from './login/index.ts';
import { type BrowserState, LoginSession } from './login/session.ts';
import type { BrowserPages } from './login/walk.ts';
import { WALK_RECORD, sharedOrFresh } from './shared-walk.ts';
import { pushRequest, pushedAuthorizationUrl, pushedRequestOf, refusedPush, requiresPar } from './par.ts';
import { createPkce, randomToken, s256 } from './pkce.ts';
import type { ClientRole, RequirementRef } from './requirements.ts';
import type { Finding, Level, LoginWalk, ProfileName, ResolvedRequirement } from './results.ts';
import type { AuthorizeResult, PropertyOptions, Scenario, ScenarioBrowser, ScenarioContext } from './scenario.ts';
import type { ScreenshotStore } from './screenshots.ts';
import type { Target } from './target.ts';
import type { TargetTraffic } from './traffic.ts';

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
  /** Caps on responses (the config's limits). */
  limits?: Partial<Limits>;
  /** The run's traffic to the target (harness/traffic.ts). */
  traffic?: TargetTraffic;
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
  /** The login walks the scenario made (report.json's `walks`). */
  walks: LoginWalk[];
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

type Evidence = Recorder['evidence'][number];

/** What the steps below share: the input, the scenario's evidence, findings, log and activity. */
interface Scope {
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

/** ctx.http: the scenario's HTTP client, recording into its evidence within the config's origins and limits. */
function scenarioHttp(input: ContextInput): HttpClient {
  const { target } = input;
  return new HttpClient({
    recorder: input.recorder,
    signal: input.signal,
    requestTimeoutMs: input.requestTimeoutMs,
    encoding: input.config.tokenRequestEncoding,
    ...(input.origins ? { origins: input.origins } : {}),
    ...(input.limits ? { limits: input.limits } : {}),
    ...(input.traffic ? { traffic: input.traffic } : {}),
    issuer: target.issuer,
    ...(target.endpoints.token ? { tokenEndpoint: target.endpoints.token } : {}),
    ...(input.fetch ? { fetch: input.fetch } : {}),
    ...(input.config.login.driver !== 'browser' && input.config.login.userAgent
      ? { userAgent: input.config.login.userAgent }
      : {}),
  });
}

/** The browser contexts a scenario opens, closed all together when it ends (none can open after). */
function browserContexts(input: ContextInput) {
  const opened = new Set<BrowserContext>();
  let disposed = false;
  /** A context from the run's browser, this scenario's to close (none once the scenario has ended). */
  const take = async (get: () => Promise<BrowserContext>): Promise<BrowserContext> => {
    if (disposed) throw new HarnessError(`scenario ${input.scenario.id} has ended; no browser context can be opened`);
    const context = await get();
    opened.add(context);
    return context;
  };
  const open = async (state?: BrowserState): Promise<BrowserContext> => {
    const context = await take(() => input.browser.newContext(state));
    context.on('close', () => opened.delete(context));
    return context;
  };
  /**
   * A context for a fresh walk, emptied by an earlier one when there is one (BrowserHost.emptiedContext). No 'close'
   * listener: the context serves many scenarios, and dispose closing one already closed does nothing.
   */
  const emptied = (): Promise<BrowserContext> => take(() => input.browser.emptiedContext());
  /** A context the walk emptied goes back to the run's browser, no longer this scenario's to close. */
  const giveBack = (context: BrowserContext): void => {
    if (!opened.delete(context) || disposed) {
      void context.close().catch(() => undefined);
      return;
    }
    input.browser.giveBack(context);
  };
  const dispose = async (): Promise<void> => {
    disposed = true;
    await Promise.all([...opened].map((c) => c.close().catch(() => undefined)));
  };
  return { open, emptied, giveBack, dispose };
}

/** A screenshot saved to the run's store and recorded as evidence; one that fails is a log line, never an error. */
function screenshotTaker({ input, recorder, log, shots }: Scope) {
  return async (page: Page, label: string): Promise<void> => {
    if (shots.paused) {
      shots.skipped++;
      return;
    }
    try {
      // caret "initial": the caret is left as it is, which spares a style injected and removed around every shot
      const bytes = await page.screenshot({ type: 'png', caret: 'initial', timeout: 5_000 });
      const path = await input.screenshots.save(input.scenario.id, label, bytes);
      recorder.add({ kind: 'screenshot', label, path });
    } catch (error) {
      const why = error instanceof Error ? error.message.split('\n')[0] : String(error);
      log.push(`screenshot "${label}" not taken: ${why}`);
    }
  };
}

/** What a login driver is given: the browser, the evidence, the origins, the log and the run's session. */
function driverEnvironment(
  { input, recorder, log, walks }: Scope,
  contexts: Pick<ReturnType<typeof browserContexts>, 'open' | 'emptied' | 'giveBack'>,
  screenshot: DriverEnvironment['recorder']['screenshot'],
): DriverEnvironment {
  return {
    ...(input.browser.unavailable ? { browserUnavailable: input.browser.unavailable } : {}),
    newBrowserContext: contexts.open,
    emptiedBrowserContexts: { take: contexts.emptied, giveBack: contexts.giveBack },
    recorder: { screenshot, transcript: (e) => recorder.add(e), learn: (fields) => recorder.learnIssued(fields) },
    signal: input.signal,
    ...(input.origins ? { origins: input.origins } : {}),
    log: (message) => {
      log.push(message);
    },
    timeoutMs: input.requestTimeoutMs,
    ...(input.session ? { session: input.session } : {}),
    ...(input.sharedBrowserContext ? { sharedBrowserContext: input.sharedBrowserContext } : {}),
    noteWalk: (walk) => {
      walks.push(walk);
    },
    ...(input.browserPages ? { browserPages: input.browserPages } : {}),
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

/** ctx.client: a configured client by role, or a HarnessError when the scenario did not declare the role. */
function clientLookup(input: ContextInput): (role: ClientRole) => Client {
  return (role) => {
    const c = input.clients[role];
    if (!c)
      throw new HarnessError(
        `scenario ${input.scenario.id} uses client role "${role}" but does not declare it in requires.roles ` +
          `(clients.${role} is not configured)`,
      );
    return c;
  };
}

/** ctx.authorizationUrl: the client's defaults, then its configured authorizationParams, then the scenario's. */
function authorizationUrlBuilder(
  target: Target,
  client: (role: ClientRole) => Client,
): ScenarioContext['authorizationUrl'] {
  return (role, params = {}) => {
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
}

interface AuthorizeParts {
  http: HttpClient;
  target: Target;
  client: (role: ClientRole) => Client;
  authorizationUrl: ScenarioContext['authorizationUrl'];
}

/**
 * ctx.authorize through a given driver: pushed first (RFC 9126) when asked or required, then walked; a walk from
 * the run's shared session that does not reach the redirect URI is done again, pushed again, on a fresh one
 * (shared-walk.ts).
 */
function authorizer(
  { input, recorder, log }: Scope,
  http: HttpClient,
  client: (role: ClientRole) => Client,
  authorizationUrl: ScenarioContext['authorizationUrl'],
) {
  const parts: AuthorizeParts = { http, target: input.target, client, authorizationUrl };
  const record = (text: string): void => {
    recorder.add({ kind: 'note', label: WALK_RECORD, text });
    log.push(`${WALK_RECORD}: ${text}`);
  };
  return (driverOf: () => LoginDriver): ScenarioContext['authorize'] =>
    (role, params: Params = {}, options = {}): Promise<AuthorizeResult> =>
      sharedOrFresh(
        options,
        input.session,
        (opts) => authorizeOnce(parts, driverOf(), role, params, opts),
        record,
        input.signal,
      );
}

/** One authorization: the request built (pushed first when asked or required) and walked by the driver. */
async function authorizeOnce(
  { http, target, client, authorizationUrl }: AuthorizeParts,
  driver: LoginDriver,
  role: ClientRole,
  params: Params,
  options: AuthorizeOptions,
): Promise<AuthorizeResult> {
  let { url, request } = authorizationUrl(role, params);
  const stopAt = [request.redirect_uri, client(role).redirectUri].filter((u): u is string => !!u);
  // RFC 9126: pushed first when asked, or when the target requires it of every request.
  if (options.par ?? requiresPar(target)) {
    const res = await pushRequest(http, target, client(role), request);
    const pushed = pushedRequestOf(res);
    if (!pushed) return { ...refusedPush(res, res.url), request };
    url = pushedAuthorizationUrl(target, client(role).clientId, pushed.requestUri);
  }
  const outcome = await driver.authorize(url, stopAt, options);
  return { ...outcome, request };
}

/** ctx.softly: a CheckFailure becomes a finding (its status by the requirement it names) and the check goes on. */
function softly({ input, recorder, findings }: Scope): ScenarioContext['softly'] {
  return async (check, options = {}) => {
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
  };
}

/** A property's time budget (ms): its own, else the scenario's share less what the scenario has used. */
export function propertyBudgetMs(
  input: Pick<ContextInput, 'propertyBudgetMs' | 'timeLimitMs'>,
  elapsedMs: number,
  own?: number,
): number {
  const share =
    input.propertyBudgetMs ?? (input.timeLimitMs === undefined ? undefined : input.timeLimitMs * PROPERTY_BUDGET_SHARE);
  const left = share === undefined ? undefined : share - elapsedMs;
  return Math.max(1, Math.round(own ?? left ?? Number.POSITIVE_INFINITY));
}

/** A case where the target answered HTTP 5xx: its own finding, never the property's counterexample. */
interface ServerError {
  status: number;
  request: string;
  evidence: Evidence[];
}

/**
 * The cases of one property: each is judged while the budget lasts (the first always is), and
 * what a throwing case means is sorted out: a harness error stops judging, a 5xx is set aside, a
 * CheckFailure is the counterexample (its transcripts kept). Each case's evidence is taken off
 * after it; the property puts back what the report keeps.
 */
export class PropertyCases {
  skipped = 0;
  begun = 0;
  harnessError: unknown;
  failingRun: Evidence[] = [];
  readonly serverErrors: ServerError[] = [];

  constructor(
    readonly recorder: Recorder,
    readonly deadline: number,
  ) {}

  async judge<T>(predicate: (value: T) => Promise<void>, value: T): Promise<boolean> {
    if (this.harnessError) return true;
    // Past the budget no case is started (but the first always is): it passes unjudged, and is counted as not run.
    if (this.begun > 0 && performance.now() > this.deadline) {
      this.skipped++;
      return true;
    }
    this.begun++;
    const start = this.recorder.evidence.length;
    try {
      await predicate(value);
      return true;
    } catch (error) {
      return this.#threw(error, this.recorder.evidence.slice(start));
    } finally {
      this.recorder.evidence.length = start;
    }
  }

  /**
   * The counterexample once more, for the evidence the cases did not record (screenshots): true, with that run's
   * evidence as the failing run, when it fails again (a CheckFailure); false, the evidence unchanged, when not.
   */
  async replay<T>(predicate: (value: T) => Promise<void>, value: T): Promise<boolean> {
    const start = this.recorder.evidence.length;
    try {
      await predicate(value);
      return false;
    } catch (error) {
      if (!(error instanceof CheckFailure)) return false;
      this.failingRun = this.recorder.evidence.slice(start);
      return true;
    } finally {
      this.recorder.evidence.length = start;
    }
  }

  #threw(error: unknown, run: Evidence[]): true {
    if (!(error instanceof CheckFailure)) {
      this.harnessError ??= error; // not a counterexample: stop judging and report the error
      return true;
    }
    const crashed = run.find((e) => e.kind === 'http' && e.response !== undefined && e.response.status >= 500);
    if (crashed?.kind === 'http') {
      const { request, label } = crashed;
      this.serverErrors.push({
        status: crashed.response!.status,
        request: `${request.method} ${request.url.split('?')[0]}${label ? ` (${label})` : ''}`,
        evidence: run,
      });
      return true;
    }
    this.failingRun = run;
    throw error;
  }
}

const propertyName = (label?: string) => `the property${label ? ` "${label}"` : ''}`;

/** The note for a property that ran out of its budget: how many cases were judged, how to run more. */
function noteBudgetUsed({ recorder, log }: Scope, label: string | undefined, ran: number, runs: number, ms: number) {
  const what = propertyName(label);
  const note =
    `${what[0]!.toUpperCase()}${what.slice(1)} ran ${ran} of ${runs} case${runs === 1 ? '' : 's'} ` +
    `within its time budget of ${ms} ms; ` +
    `those ${ran} were judged, the rest not run (raise timeouts.scenarioMs, or pass --runs, to run more).`;
  recorder.add({ kind: 'note', label: 'property time budget', text: note });
  log.push(note);
}

/** One warning for the cases the target answered with HTTP 5xx, with the first one's transcripts. */
function warnServerErrors({ recorder, findings }: Scope, errors: ServerError[], runs: number, label?: string) {
  const first = errors[0]!;
  recorder.evidence.push(...first.evidence);
  const statuses = [...new Set(errors.map((e) => e.status))].join(', ');
  findings.push({
    status: 'warning',
    failureKind: 'refused-wrongly',
    message:
      `the target failed with HTTP 5xx (${statuses}) in ${errors.length} of ${runs} run${runs === 1 ? '' : 's'} of ` +
      `${label ?? 'the property'}, first on ${first.request}; a server error is no verdict on the property, ` +
      'but a request the client could send should get a 4xx answer (RFC 9110 §15.6).',
  });
}

/** The counterexample as evidence (with the options that replay it) and the CheckFailure the property throws. */
function counterexampleFailure<T>(
  { input, recorder }: Scope,
  details: fc.RunDetails<[T]>,
  options: PropertyOptions<T>,
  runs: number,
): CheckFailure {
  const value = details.counterexample?.[0];
  const shown = details.counterexample ? clip(options.show ? options.show(value as T) : fc.stringify(value)) : '(none)';
  recorder.add({
    kind: 'counterexample',
    ...(options.label ? { label: options.label } : {}),
    seed: input.seed,
    runs,
    ...(details.counterexamplePath ? { path: details.counterexamplePath } : {}),
    value: shown,
    replay: replayOptions(input, input.scenario.id),
  });
  const inner = details.errorInstance instanceof CheckFailure ? details.errorInstance : undefined;
  const why = inner?.message ?? (details.interrupted ? 'the property was interrupted' : 'the property failed');
  return new CheckFailure(
    `${why} (counterexample ${shown}, found within ${details.numRuns} run${details.numRuns === 1 ? '' : 's'})`,
    {
      ...(inner?.requirement ? { requirement: inner.requirement } : {}),
      kind: inner?.kind ?? 'accepted',
    },
  );
}

/** The counterexample run once more with screenshots, and a note of how that went. */
async function replayForScreenshots<T>(
  scope: Scope,
  cases: PropertyCases,
  predicate: (value: T) => Promise<void>,
  value: T,
): Promise<void> {
  const again = await scope.activity.track('the counterexample once more, for its screenshots', () =>
    cases.replay(predicate, value),
  );
  scope.recorder.add({
    kind: 'note',
    label: 'counterexample screenshots',
    text: again
      ? 'The cases ran without screenshots; the counterexample was run once more to take them, and failed again: ' +
        'its evidence below is from that run.'
      : 'The cases ran without screenshots; the counterexample was run once more to take them, but did not fail the ' +
        'same way again: its evidence below is from the run that failed, without screenshots.',
  });
}

/** ctx.property: the cases that fit the budget, judged; then the budget note, the 5xx warning, the counterexample. */
function propertyRunner(scope: Scope): ScenarioContext['property'] {
  const { input, recorder } = scope;
  return async <T>(arbitrary: fc.Arbitrary<T>, predicate: (value: T) => Promise<void>, options = {}) => {
    const opts: PropertyOptions<T> = options;
    const runs = input.runsGiven ? input.runs : (opts.runs ?? input.runs);
    const before = recorder.evidence.length;
    const budgetMs = propertyBudgetMs(input, performance.now() - scope.started, opts.budgetMs);
    const cases = new PropertyCases(recorder, performance.now() + budgetMs);
    const what = `property${opts.label ? ` "${opts.label}"` : ''} (${runs} case${runs === 1 ? '' : 's'})`;
    const { shots } = scope;
    const [paused, skippedBefore] = [shots.paused, shots.skipped];
    shots.paused = true;
    const details = await scope.activity
      .track(what, () =>
        fc.check(
          fc.asyncProperty(arbitrary, (value) => cases.judge(predicate, value)),
          { seed: input.seed, numRuns: runs, endOnFailure: false },
        ),
      )
      .finally(() => {
        shots.paused = paused;
      });
    if (cases.harnessError) throw cases.harnessError;
    recorder.evidence.length = before;
    if (!details.failed && cases.skipped > 0)
      noteBudgetUsed(scope, opts.label, details.numRuns - cases.skipped, runs, budgetMs);
    if (cases.serverErrors.length) warnServerErrors(scope, cases.serverErrors, runs, opts.label);
    if (!details.failed) return;
    if (details.counterexample && shots.skipped > skippedBefore && !paused)
      await replayForScreenshots(scope, cases, predicate, details.counterexample[0]);
    recorder.evidence.push(...cases.failingRun);
    throw counterexampleFailure(scope, details, opts, runs);
  };
}

/** The pieces of ctx that log in: the lazily made login driver and ctx.authorize through a driver. */
interface LoginParts {
  http: HttpClient;
  env: DriverEnvironment;
  client: (role: ClientRole) => Client;
  authorizationUrl: ScenarioContext['authorizationUrl'];
  authorizeWith: (driverOf: () => LoginDriver) => ScenarioContext['authorize'];
  login: () => LoginDriver;
  screenshot: ScenarioBrowser['screenshot'];
  newBrowserContext: DriverEnvironment['newBrowserContext'];
}

/** ctx.hooks: the config's hooks, with the scenario's time limit and signal, noting into its evidence. */
function scenarioHooks({ input, recorder }: Scope): ScenarioContext['hooks'] {
  return createHooks(input.config, {
    timeoutMs: input.requestTimeoutMs,
    signal: input.signal,
    ...(input.fetch ? { fetch: input.fetch } : {}),
    note: (text) => recorder.add({ kind: 'note', text }),
  });
}

/** ctx.evidence: what a scenario adds to its evidence itself. */
function evidenceRecorder(recorder: Recorder): ScenarioContext['evidence'] {
  return {
    add: (e) => recorder.add(e),
    note: (text, label) => recorder.add({ kind: 'note', text, ...(label ? { label } : {}) }),
    markDecisive: () => recorder.markDecisive(),
  };
}

/** ctx without flows: every member but the browser tools, which `browser` makes on first use. */
function contextBase(scope: Scope, parts: LoginParts, browser: () => ScenarioBrowser): Omit<ScenarioContext, 'flows'> {
  const { input, recorder, log, findings } = scope;
  const { scenario, target, config } = input;
  const jwt = new JwtTools(parts.http, target);
  return {
    id: scenario.id,
    target,
    profile: input.profile,
    level: input.level,
    req: scenario.req,
    applies: (requirement) => input.declared(requirement).applies,
    seed: input.seed,
    runs: input.runs,
    clients: input.clients,
    client: parts.client,
    ...(config.user ? { user: config.user } : {}),
    http: parts.http,
    get login() {
      return parts.login();
    },
    authorizationUrl: parts.authorizationUrl,
    authorize: parts.authorizeWith(parts.login),
    loginSession: (label) => new LoginSession(label),
    hooks: scenarioHooks(scope),
    get browser() {
      return browser();
    },
    pkce: { create: createPkce, s256 },
    random: randomToken,
    jwt,
    evidence: evidenceRecorder(recorder),
    log: (message) => {
      log.push(message);
    },
    signal: input.signal,
    softly: softly(scope),
    warn(message, kind = 'refused-wrongly') {
      findings.push({ status: 'warning', message, failureKind: kind });
    },
    skip(reason) {
      throw new SkipSignal(reason);
    },
    property: propertyRunner(scope),
  };
}

/**
 * ctx.browser, made on first use: the same ctx with the browser as its login driver. Only a
 * scenario that declares requires.browser may use it.
 */
function browserToolsMaker(scope: Scope, parts: LoginParts, base: () => Omit<ScenarioContext, 'flows'>) {
  const { scenario, config } = scope.input;
  let tools: ScenarioBrowser | undefined;
  return (): ScenarioBrowser => {
    if (!scenario.requires?.browser)
      throw new HarnessError(`scenario ${scenario.id} uses ctx.browser but does not declare requires.browser`);
    if (tools) return tools;
    const driver = trackedDriver(scope.activity, browserLoginDriver(config, parts.env));
    const authorize = parts.authorizeWith(() => driver);
    const newPage = async (): Promise<Page> => {
      const context = await parts.newBrowserContext();
      return context.pages()[0] ?? context.newPage(); // a context opened ahead comes with a blank page
    };
    const framing = { host: config.browser?.framingHost ?? '127.0.0.1', port: config.browser?.framingPort ?? 0 };
    // The same ctx with the browser as its login driver (a prototype view: spreading would run base's getters).
    const view = Object.create(base(), { login: { value: driver }, authorize: { value: authorize } });
    tools = { login: driver, authorize, flows: createFlows(view), newPage, screenshot: parts.screenshot, framing };
    return tools;
  };
}

/** The login side of ctx: browser contexts, screenshots, the driver environment, the driver, authorize. */
function loginParts(scope: Scope) {
  const { input } = scope;
  const http = scenarioHttp(input);
  const contexts = browserContexts(input);
  const screenshot = screenshotTaker(scope);
  const env = driverEnvironment(scope, contexts, screenshot);
  let driver: LoginDriver | undefined;
  const login = (): LoginDriver => (driver ??= trackedDriver(scope.activity, input.loginDriver(http, env)));
  const client = clientLookup(input);
  const authorizationUrl = authorizationUrlBuilder(input.target, client);
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

export function createContext(input: ContextInput): ContextState {
  const scope: Scope = {
    input,
    recorder: input.recorder,
    findings: [],
    log: [],
    activity: new Activity(),
    started: performance.now(),
    shots: { paused: false, skipped: 0 },
    walks: [],
  };
  const { parts, dispose } = loginParts(scope);
  const base: Omit<ScenarioContext, 'flows'> = contextBase(
    scope,
    parts,
    browserToolsMaker(scope, parts, () => base),
  );
  const ctx: ScenarioContext = Object.assign(base, { flows: createFlows(base) });
  const { findings, log, activity, walks } = scope;
  return { ctx, findings, log, activity, walks, dispose };
}
