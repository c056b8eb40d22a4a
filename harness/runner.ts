/**
 * The runner: selection (--only/--skip), profile levels, gating by roles, user and capabilities,
 * per-scenario timeouts, bounded concurrency, seeds, redaction, expected failures. It is handed
 * its scenarios; it never imports suites/.
 */
import { type Shard, shardOf } from './shard.ts';
import { type Client, type TargetConfig, resolveClients } from './config.ts';
import { PROPERTY_BUDGET_SHARE, createContext } from './context.ts';
import { type Outage, TargetTraffic } from './traffic.ts';
import { CheckFailure, HarnessError, ScenarioTimeoutError, describeError, errorCode } from './failures.ts';
import { idMatcher } from './glob.ts';
import { type HttpClient, Recorder } from './http.ts';
import type { BrowserContext } from 'playwright-core';
import { BrowserPageMemory } from './login/auto.ts';
import { BrowserHost } from './login/chromium.ts';
import { LoginSession } from './login/session.ts';
import { type DriverEnvironment, type LoginDriverFactory, defaultLoginDriver } from './login/index.ts';
import { browserTrouble } from './login/walk-errors.ts';
import { OriginPolicy } from './origin.ts';
import type { Redactor } from './redact.ts';
import { type ClientRole, type LinkOptions, type RequirementRef, resolveLevel } from './requirements.ts';
import type {
  ErrorCode,
  FailureKind,
  Finding,
  Level,
  ProfileName,
  ResolvedRequirement,
  ScenarioResult,
  Status,
} from './results.ts';
import { type Scenario, defineScenario } from './scenario.ts';
import { removeStaleScreenshots, ScreenshotStore } from './screenshots.ts';
import { type Capability, GRANT, type Target, explainMissing } from './target.ts';
import { describeOutcome } from './flows.ts';
import { tokenResponseDeviations } from './token-set.ts';

export interface RunnerOptions {
  scenarios: readonly Scenario[];
  config: TargetConfig;
  target: Target;
  redactor: Redactor;
  profile?: ProfileName;
  /** The run's seed (default: random); each scenario gets one derived from it and its id. */
  seed?: number;
  /**
   * Property runs (--runs): every property runs this many times. When absent each property runs
   * its own default (PropertyOptions.runs, else DEFAULTS.runs), which keeps the catalog fast.
   */
  runs?: number;
  /** Scenarios in flight at once (default 4). */
  concurrency?: number;
  only?: string[];
  skip?: string[];
  /** Run only this shard's part of the selection (`--shard i/n`). */
  shard?: Shard;
  scenarioTimeoutMs?: number;
  requestTimeoutMs?: number;
  links?: LinkOptions;
  loginDriver?: LoginDriverFactory;
  /**
   * Chromium for browser scenarios and the browser login driver. Default: one found on this
   * machine (harness/login/chromium.ts), launched on first use and closed when the run ends; a
   * host passed in is shared and left open (e.g. one browser for a whole test file).
   */
  browser?: BrowserHost;
  /** The report folder: screenshots go to its screenshots/ (default: a temporary folder). */
  reportDir?: string;
  onResult?: (result: ScenarioResult) => void;
  fetch?: typeof fetch;
  /** Roles the IdP refused to register (harness/registration/session.ts): their scenarios skip with the reason. */
  refusedRoles?: ReadonlyMap<ClientRole, string>;
}

export interface RunOutcome {
  results: ScenarioResult[];
  seed: number;
  runs: number;
  notices: string[];
  /** The target stopped answering mid-run and never answered again (harness/traffic.ts). */
  outage?: Outage;
  /** Ids of the selected scenarios that need a login (requires.user): the run's core flows. */
  needsLogin: string[];
}

export const DEFAULTS = { concurrency: 4, runs: 50, scenarioTimeoutMs: 30_000, requestTimeoutMs: 10_000 } as const;

/**
 * How much longer a scenario may take when it logs in through Chromium (login.driver "browser",
 * or a browser scenario): a script-heavy IdP's login costs seconds in a browser. It scales the
 * default limit and a scenario's own; an explicit timeouts.scenarioMs (or --timeout) is
 * taken as given.
 */
export const BROWSER_TIME_FACTOR = 3;

export function randomSeed(): number {
  return Math.floor(Math.random() * 0x7fffffff);
}

/** A scenario's own seed: FNV-1a over the run seed and the id, so `--only id` replays it. */
export function scenarioSeed(runSeed: number, id: string): number {
  let h = 0x811c9dc5;
  for (const ch of `${runSeed}:${id}`) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193);
  return (h >>> 0) & 0x7fffffff;
}

export function selectScenarios(scenarios: readonly Scenario[], only: string[] = [], skip: string[] = []): Scenario[] {
  const isOnly = idMatcher(only);
  const isSkipped = idMatcher(skip);
  return scenarios.filter((s) => (only.length === 0 || isOnly(s.id)) && !isSkipped(s.id));
}

function describeCapability(c: Capability): string {
  const [kind, value] = [c.slice(0, c.indexOf(':')), c.slice(c.indexOf(':') + 1)];
  switch (kind) {
    case 'grant':
      return `the grant type "${value}" (grant_types_supported)`;
    case 'response_type':
      return `the response type "${value}" (response_types_supported)`;
    case 'pkce':
      return `the PKCE method ${value} (code_challenge_methods_supported)`;
    case 'auth':
      return `the client authentication method "${value}" (token_endpoint_auth_methods_supported)`;
    case 'endpoint':
      return `a ${value} endpoint`;
    case 'metadata':
      return `${value} (true or a non-empty list in the discovery document)`;
    default:
      return `"${value}" (${kind})`;
  }
}

/** Capabilities a run can observe for a client role when discovery does not advertise them. */
const OBSERVABLE: ReadonlySet<Capability> = new Set<Capability>(['grant:refresh_token']);

/** The code-flow role a scenario's refresh would use: its first declared role with a redirect URI. */
function probeRole(s: Scenario, clients: Partial<Record<ClientRole, Client>>): ClientRole | undefined {
  const roles: readonly ClientRole[] = s.requires?.roles?.length
    ? s.requires.roles
    : ['confidential', 'public', 'confidential2'];
  return roles.find((r) => clients[r]?.redirectUri);
}

/** Why an OIDC-only scenario does not apply to this target (an OAuth 2.0 authorization server), if it does not. */
export function kindSkip(s: Pick<Scenario, 'appliesTo'>, target: Pick<Target, 'kind'>): string | undefined {
  if (s.appliesTo !== 'oidc' || target.kind.protocol !== 'oauth2') return undefined;
  return `an OAuth 2.0 authorization server (${target.kind.why}): OIDC Core does not apply`;
}

/**
 * Why a scenario cannot run against this target and config, or undefined when it can. A missing
 * observable capability (a refresh_token grant) is first looked for by `probe` (one code flow per
 * client role, shared by the run): a token response with a refresh_token enables it for that role.
 */
export async function gate(
  s: Scenario,
  clients: Partial<Record<ClientRole, Client>>,
  config: TargetConfig,
  target: Target,
  browser?: BrowserHost,
  probe?: (role: ClientRole) => Promise<string | undefined>,
  refused?: ReadonlyMap<ClientRole, string>,
): Promise<string | undefined> {
  const notApplicable = kindSkip(s, target);
  if (notApplicable) return notApplicable;
  if (s.requires?.browser && browser?.unavailable) return `needs Chromium: ${browser.unavailable}`;
  const missing = (s.requires?.roles ?? []).filter((r) => !clients[r]);
  const refusal = missing.find((r) => refused?.has(r));
  if (refusal) return `needs the ${refusal} client, which was not registered: ${refused!.get(refusal)}`;
  if (missing.length) {
    return (
      `needs the ${missing.join(' and ')} client${missing.length > 1 ? 's' : ''} ` +
      `(${missing.map((r) => `clients.${r}`).join(', ')} in the target config)`
    );
  }
  if (s.requires?.user && !config.user)
    return 'needs a user who can log in (user.username and user.password in the target config)';
  let caps = (s.requires?.capabilities ?? []).filter((c) => !target.supports(c));
  if (!caps.length) return undefined;
  if (!target.discovery) {
    return (
      `the discovery document could not be read (${target.discoveryProblem}), so it cannot ` +
      `tell ${caps.map(describeCapability).join(', ')}`
    );
  }
  const role = probeRole(s, clients);
  const probeNotes: string[] = [];
  if (role && probe && caps.some((c) => OBSERVABLE.has(c)) && config.user) {
    const problem = await probe(role);
    if (problem) probeNotes.push(problem);
    caps = caps.filter((c) => !target.observed(role).has(c));
  }
  if (!caps.length) return undefined;
  return (
    `${caps.map((c) => explainMissing(target, c)).join('; ')}` +
    `${probeNotes.length ? ` (${probeNotes.join('; ')})` : ''}`
  );
}

/** The synthetic scenario the capability probe runs as (never reported). */
const PROBE_SCENARIO: Scenario = defineScenario({
  id: 'harness.capability-probe',
  title: 'Looks for capabilities discovery does not advertise',
  requirements: { none: { spec: 'RFC 6749', section: '1', level: 'MAY', party: 'server' } },
  severity: 'info',
  run: () => undefined,
});

/** How the result of a scenario cut off by a target that stopped answering begins. */
export const STOPPED_ANSWERING = 'the target stopped answering';

const RANK: Record<Status, number> = { passed: 0, skipped: 0, warning: 1, failed: 2, error: 3 };

type Classified = { status: Status; message: string; skipReason?: string; errorCode?: ErrorCode };

/** What a thrown error makes of the scenario, sorted on the error's stable code (harness/failures.ts). */
function classify(error: unknown, timeoutMs: number): Classified {
  const message = error instanceof Error ? error.message : String(error);
  switch (errorCode(error)) {
    case 'ERR_SKIP':
      return { status: 'skipped', message, skipReason: message };
    case 'ERR_SCENARIO_TIMEOUT':
      return { status: 'error', message, errorCode: 'ERR_SCENARIO_TIMEOUT' };
    case 'ERR_TARGET_UNREACHABLE':
      return { status: 'error', message: `${STOPPED_ANSWERING}: ${message}`, errorCode: 'ERR_TARGET_UNREACHABLE' };
    case 'ERR_COULD_NOT_JUDGE':
      return { status: 'error', message: `could not judge: ${message}`, errorCode: 'ERR_COULD_NOT_JUDGE' };
    case 'ERR_PRECONDITION':
      return {
        status: 'error',
        message: `could not get as far as the check: ${message}`,
        errorCode: 'ERR_PRECONDITION',
      };
    case 'ERR_HARNESS':
      return { status: 'error', message, errorCode: 'ERR_HARNESS' };
    case 'ERR_TARGET_SERVER_ERROR':
      return { status: 'error', message, errorCode: 'ERR_TARGET_SERVER_ERROR' };
    default:
  }
  if (error instanceof Error && error.name === 'AbortError')
    return { status: 'error', message: `aborted after ${timeoutMs} ms`, errorCode: 'ERR_SCENARIO_TIMEOUT' };
  // The browser failed under the scenario (outside a login walk, which names its page and step itself).
  const trouble = browserTrouble(error);
  if (trouble) {
    return {
      status: 'error',
      message: `could not get as far as the check: in the browser, ${trouble}`,
      errorCode: 'ERR_BROWSER',
    };
  }
  const name = error instanceof Error ? error.name : typeof error;
  return {
    status: 'error',
    message: `the scenario threw ${name}: ${describeError(error)} (a bug in the scenario or the harness)`,
    errorCode: 'ERR_UNEXPECTED',
  };
}

/** What every scenario of a run shares: the options resolved once, with the run's browser, session and store. */
interface Run {
  options: RunnerOptions;
  config: TargetConfig;
  target: Target;
  redactor: Redactor;
  profile: ProfileName;
  seed: number;
  runs: number;
  runsGiven: boolean;
  clients: Partial<Record<ClientRole, Client>>;
  /** timeouts.scenarioMs or --timeout when given: taken as is (no browser factor). */
  explicitTimeoutMs: number | undefined;
  timeoutMs: number;
  requestTimeoutMs: number;
  loginDriver: LoginDriverFactory;
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
  /** The run's traffic to the target: an outage mid-run becomes one finding (harness/traffic.ts). */
  traffic: TargetTraffic;
  /** The capability probe (see gate), one per client role. */
  probe: (role: ClientRole) => Promise<string | undefined>;
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

/** Step 1: the options resolved against the config and the defaults; the run's browser, session and store made. */
export function resolveRun(options: RunnerOptions): Omit<Run, 'probe'> {
  const { config, target } = options;
  const explicitTimeoutMs = options.scenarioTimeoutMs ?? config.timeouts?.scenarioMs;
  const browser = options.browser ?? new BrowserHost();
  return {
    options,
    config,
    target,
    redactor: options.redactor,
    profile: options.profile ?? 'spec',
    seed: options.seed ?? randomSeed(),
    runs: options.runs ?? DEFAULTS.runs,
    runsGiven: options.runs !== undefined,
    clients: resolveClients(config, target.kind.protocol),
    explicitTimeoutMs,
    timeoutMs: explicitTimeoutMs ?? DEFAULTS.scenarioTimeoutMs,
    requestTimeoutMs: options.requestTimeoutMs ?? config.timeouts?.requestMs ?? DEFAULTS.requestTimeoutMs,
    loginDriver: options.loginDriver ?? defaultLoginDriver,
    origins: target.origins ?? new OriginPolicy({ issuer: config.issuer, allowedOrigins: config.allowedOrigins ?? [] }),
    browser,
    session: config.login.shareSession === false ? undefined : new LoginSession(),
    sharedBrowserContext: lazyContext(browser),
    browserPages: new BrowserPageMemory(),
    screenshots: new ScreenshotStore(options.reportDir),
    traffic: TargetTraffic.afterDiscovery(),
  };
}

/** Step 2: the config's expectedFailures that name no known scenario, as notices. */
export function unknownExpectedFailures(expected: Iterable<string>, scenarios: readonly Scenario[]): string[] {
  const known = new Set(scenarios.map((s) => s.id));
  return [...expected]
    .filter((id) => !known.has(id))
    .map((id) => `expectedFailures lists "${id}", which is not a known scenario id`);
}

/** Step 3: --only and --skip, then this shard's part. */
function selectForRun(options: RunnerOptions): Scenario[] {
  const chosen = selectScenarios(options.scenarios, options.only, options.skip);
  return options.shard ? shardOf(chosen, options.shard) : chosen;
}

/** What createContext takes that is the same for every scenario of the run. */
function sharedContextInput(run: Omit<Run, 'probe'>) {
  const { config, options } = run;
  return {
    target: run.target,
    config,
    clients: run.clients,
    profile: run.profile,
    runs: run.runs,
    runsGiven: run.runsGiven,
    runSeed: run.seed,
    requestTimeoutMs: run.requestTimeoutMs,
    browser: run.browser,
    screenshots: run.screenshots,
    origins: run.origins,
    traffic: run.traffic,
    browserPages: run.browserPages,
    ...(run.session ? { session: run.session, sharedBrowserContext: run.sharedBrowserContext.get } : {}),
    ...(config.limits ? { limits: config.limits } : {}),
    loginDriver: (http: HttpClient, env: DriverEnvironment) => run.loginDriver(http, config, env),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  };
}

/** Step 4: the capability probe, memoized by role: a code flow with offline_access looking for a refresh_token. */
function refreshProber(run: Omit<Run, 'probe'>): Run['probe'] {
  const probes = new Map<ClientRole, Promise<string | undefined>>();
  return (role) => {
    let running = probes.get(role);
    if (!running) {
      running = probeRefresh(run, role);
      probes.set(role, running);
    }
    return running;
  };
}

/** A context for one of the run's own probes (never reported), with its time limit; `done` clears both. */
function probeContext(run: Omit<Run, 'probe'>, what: string) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new ScenarioTimeoutError(`${what} timed out`)), run.timeoutMs);
  const { ctx, dispose } = createContext({
    ...sharedContextInput(run),
    scenario: PROBE_SCENARIO,
    level: 'MUST',
    requirements: [],
    seed: run.seed,
    recorder: new Recorder(run.redactor),
    signal: controller.signal,
    statusOf: () => 'failed',
    declared: () => {
      throw new HarnessError(`${what} cites no requirement`);
    },
  });
  return {
    ctx,
    async done() {
      clearTimeout(timer);
      await dispose();
    },
  };
}

async function probeRefresh(run: Omit<Run, 'probe'>, role: ClientRole): Promise<string | undefined> {
  const { ctx, done } = probeContext(run, 'the refresh probe');
  try {
    const oidc = run.target.kind.protocol === 'oidc' ? ['openid'] : [];
    const scopes = [...run.clients[role]!.scope.split(' ').filter(Boolean), ...oidc, 'offline_access'];
    const scope = [...new Set(scopes)].join(' ');
    const { tokens } = await ctx.flows.tokens(role, { scope, params: { prompt: 'consent' } });
    if (!tokens.refresh_token)
      return `a code flow as the ${role} client with offline_access returned no refresh_token either`;
    return undefined;
  } catch (error) {
    return `a code flow as the ${role} client to look for a refresh_token did not complete: ${describeError(error)}`;
  } finally {
    await done();
  }
}

/**
 * What the target is, where its RFC 8414 metadata left it a guess (target.ts kindOf), settled by behaviour before any
 * scenario is gated: one code flow with the openid scope. An id_token in the token response: an OpenID provider;
 * the openid scope refused (invalid_scope) or tokens without an id_token: an OAuth 2.0 authorization server.
 * A flow that cannot complete (or no user, no code-flow client) leaves the guess, and the reason joins the kind's why.
 */
export async function settleKind(run: Omit<Run, 'probe'>): Promise<void> {
  const { target, config } = run;
  // Only RFC 8414 metadata leaves it open: OIDC Discovery metadata (or none) keeps the OpenID provider it always was.
  if (target.kind.by !== 'guess' || target.metadataKind !== 'rfc8414') return;
  if (!config.user || !target.endpoints.authorization || !target.endpoints.token) return;
  const role = (['confidential', 'public', 'confidential2'] as const).find((r) => run.clients[r]?.redirectUri);
  if (!role) return;
  const { ctx, done } = probeContext(run, 'the code flow that asks for openid');
  const settle = (protocol: 'oauth2' | 'oidc', how: string) => {
    target.kind = { protocol, why: `${target.kind.why}; ${how}`, by: 'behaviour' };
  };
  try {
    const scope = [...new Set(['openid', ...run.clients[role]!.scope.split(' ').filter(Boolean)])].join(' ');
    const pkce = ctx.pkce.create();
    const outcome = await ctx.authorize(
      role,
      { scope, code_challenge: pkce.challenge, code_challenge_method: pkce.method },
      { session: 'shared' },
    );
    if (outcome.kind === 'redirect' && outcome.params.error === 'invalid_scope') {
      settle('oauth2', `an authorization request with the openid scope was refused with invalid_scope`);
      return;
    }
    if (outcome.kind !== 'redirect' || !outcome.params.code) {
      target.kind = { ...target.kind, why: `${target.kind.why} (a code flow with openid ${describeOutcome(outcome)})` };
      return;
    }
    const res = await ctx.http.token(
      ctx.client(role),
      {
        grant_type: GRANT.code,
        code: outcome.params.code,
        redirect_uri: outcome.request.redirect_uri,
        code_verifier: pkce.verifier,
      },
      { label: 'token request (does the code flow return an id_token)' },
    );
    if (res.status !== 200 || typeof res.body.access_token !== 'string') {
      target.kind = {
        ...target.kind,
        why: `${target.kind.why} (the code from a flow with openid could not be redeemed: HTTP ${res.status})`,
      };
      return;
    }
    if (typeof res.body.id_token === 'string')
      settle('oidc', `a code flow with the openid scope returned an id_token as the ${role} client`);
    else settle('oauth2', `a code flow with the openid scope returned no id_token as the ${role} client`);
  } catch (error) {
    target.kind = {
      ...target.kind,
      why: `${target.kind.why} (a code flow with openid did not complete: ${describeError(error)})`,
    };
  } finally {
    await done();
  }
}

/** The scenario's requirement by reference, as resolved; citing an undeclared one is a HarnessError. */
function declaredLookup(s: Scenario, resolved: readonly ResolvedRequirement[]) {
  return (ref: RequirementRef): ResolvedRequirement => {
    const i = s.requirements.indexOf(ref);
    if (i < 0) {
      const known = s.requirements.map((r) => `${r.key} (${r.label})`).join(', ');
      throw new HarnessError(
        `scenario ${s.id} cites ${ref?.label ?? String(ref)}${ref?.key ? ` as "${ref.key}"` : ''}, ` +
          `which is not one of its declared requirements (${known})`,
      );
    }
    return resolved[i]!;
  };
}

/**
 * A scenario's time limit: its own or the run's default, times BROWSER_TIME_FACTOR when it logs
 * in through Chromium; an explicit timeouts.scenarioMs is taken as given. `unscaled` is the limit
 * before the factor (a property's budget comes from it). Under the auto driver a scenario starts
 * with the unscaled limit and gets `inBrowser` once one of its walks goes on in the browser.
 */
export function scenarioTimeLimit(
  s: Pick<Scenario, 'timeoutMs' | 'requires'>,
  run: Pick<Run, 'explicitTimeoutMs' | 'timeoutMs'> & { config: Pick<TargetConfig, 'login'> },
): { limit: number; unscaled: number; inBrowser: number } {
  const browserAlways = run.config.login.driver === 'browser' || s.requires?.browser === true;
  const own = s.timeoutMs !== undefined || run.explicitTimeoutMs === undefined;
  const unscaled = own ? (s.timeoutMs ?? run.timeoutMs) : run.timeoutMs;
  const inBrowser = own ? unscaled * BROWSER_TIME_FACTOR : run.timeoutMs;
  return { limit: browserAlways ? inBrowser : unscaled, unscaled, inBrowser };
}

/** A scenario's time limit that a walk going on in the browser may lengthen (the auto driver). */
class TimeLimit {
  readonly #started = performance.now();
  #timer: NodeJS.Timeout | undefined;
  #fire: (() => void) | undefined;
  constructor(public ms: number) {}

  /** Calls `fire` when the limit is reached. */
  arm(fire: () => void): void {
    this.#fire = fire;
    this.#timer = setTimeout(fire, this.ms);
  }

  /** The limit becomes `ms` from the start, when that is longer. */
  lengthen(ms: number): void {
    if (ms <= this.ms || !this.#fire) return;
    this.ms = ms;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(this.#fire, Math.max(0, this.#started + ms - performance.now()));
  }

  clear(): void {
    clearTimeout(this.#timer);
    this.#fire = undefined;
  }
}

/** Runs the scenario within its limit; on timeout the signal aborts with what was under way. What it threw. */
async function runWithinLimit(
  s: Scenario,
  state: ReturnType<typeof createContext>,
  recorder: Recorder,
  controller: AbortController,
  limit: TimeLimit,
): Promise<unknown> {
  try {
    await Promise.race([
      Promise.resolve().then(() => s.run(state.ctx)),
      new Promise<never>((_, reject) => {
        limit.arm(() => {
          const exchanges = recorder.evidence.filter((e) => e.kind === 'http').length;
          const error = new ScenarioTimeoutError(
            `did not finish within ${limit.ms} ms (${state.activity.describe(exchanges)}); ` +
              'is the target hanging? raise timeouts.scenarioMs in the target config',
          );
          controller.abort(error);
          reject(error);
        });
      }),
    ]);
    return undefined;
  } catch (error) {
    return error;
  } finally {
    limit.clear();
    await state.dispose();
  }
}

/** A note for every required capability discovery did not advertise, saying what enabled it. */
/**
 * Token responses the scenario met on its way that deviate from RFC 6749 §5.1 (no token_type, no Cache-Control:
 * no-store, not JSON): said in its evidence, never judged (token.response-format judges them).
 */
function noteTokenResponseDeviations(target: Target, recorder: Recorder): void {
  const token = target.endpoints.token;
  if (!token) return;
  const seen = new Set<string>();
  for (const e of [...recorder.evidence]) {
    if (e.kind !== 'http' || !e.response || e.response.status !== 200 || e.request.url.split('?')[0] !== token)
      continue;
    const headers = e.response.headers;
    let json: unknown;
    try {
      json = e.response.body === undefined ? undefined : JSON.parse(e.response.body);
    } catch {
      json = undefined;
    }
    if (!json || typeof json !== 'object' || !('access_token' in json)) continue;
    const found = tokenResponseDeviations({
      status: e.response.status,
      header: (name) => Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1],
      json,
    });
    const key = found.join('; ');
    if (!found.length || seen.has(key)) continue;
    seen.add(key);
    recorder.add({
      kind: 'note',
      label: 'token response',
      text:
        `On the way, a token response (${e.label ?? 'token request'}) deviated from RFC 6749 §5.1: ${key}. ` +
        'token.response-format judges that; this scenario judges only its own rule.',
    });
  }
}

function noteImpliedCapabilities(s: Scenario, target: Target, recorder: Recorder): void {
  const roles = s.requires?.roles ?? [];
  for (const c of s.requires?.capabilities ?? []) {
    const via = target.capabilities.has(c)
      ? undefined
      : (target.implied.get(c) ?? roles.map((r) => target.observedHow(r, c)).find(Boolean));
    if (via)
      recorder.add({
        kind: 'note',
        label: 'capability',
        text: `${c} is not advertised by discovery; enabled by ${via}`,
      });
  }
}

interface Verdict {
  status: Status;
  message?: string;
  failureKind?: FailureKind;
  skipReason?: string;
  errorCode?: ErrorCode;
}

/**
 * A scenario's status from what it threw and its findings: the worst status wins; among equals, a
 * security failure outranks an interop one. Only failed and warning keep a failure kind.
 */
export function judge(
  thrown: unknown,
  findings: readonly Finding[],
  statusOf: (failure: CheckFailure) => Finding['status'],
  limit: number,
): Verdict {
  let v: Verdict = { status: 'passed' };
  if (thrown instanceof CheckFailure) {
    try {
      v = { status: statusOf(thrown), message: thrown.message, failureKind: thrown.kind };
    } catch (error) {
      const { skipReason: _, ...classified } = classify(error, limit);
      v = classified;
    }
  } else if (thrown !== undefined) {
    v = classify(thrown, limit);
  }
  for (const f of findings) {
    const worse =
      RANK[f.status] > RANK[v.status] ||
      (RANK[f.status] === RANK[v.status] &&
        v.status !== 'error' &&
        v.failureKind === 'refused-wrongly' &&
        f.failureKind === 'accepted');
    if (worse) v = { ...v, status: f.status, message: f.message, failureKind: f.failureKind };
  }
  if (v.status !== 'failed' && v.status !== 'warning') delete v.failureKind;
  if (v.status !== 'error') delete v.errorCode;
  return v;
}

/** What a result says of its scenario whatever its outcome: id, title, area, level, requirements, catches. */
function resultBase(s: Scenario, resolution: ReturnType<typeof resolveLevel>) {
  return {
    id: s.id,
    title: s.title,
    area: s.area,
    severity: s.severity,
    ...(resolution.level ? { level: resolution.level } : {}),
    requirements: resolution.requirements,
    catches: [...(s.catches ?? [])],
  };
}

/**
 * A failure's status: the level of the requirement it names when that requirement applies; else
 * the scenario's level (a requirement that does not apply, another profile or a client rule,
 * cannot set the status).
 */
function statusByRequirement(declared: (ref: RequirementRef) => ResolvedRequirement, level: Level) {
  return (failure: CheckFailure): Finding['status'] => {
    const named = failure.requirement ? declared(failure.requirement) : undefined;
    return levelStatus(named?.applies ? named.level : level);
  };
}

/** Step 5, per scenario: resolve its level, gate it, run it in a fresh ctx within its limit, judge it. */
async function runOne(run: Run, s: Scenario): Promise<ScenarioResult> {
  const started = performance.now();
  const resolution = resolveLevel(s.requirements, run.profile, s.requires?.roles ?? [], run.options.links);
  const base = resultBase(s, resolution);
  // CHROMIUM_PATH set wrong: a browser scenario that could otherwise run is a set-up error, never a silent skip.
  const browserProblem = s.requires?.browser ? run.browser.misconfigured : undefined;
  const gateBrowser = browserProblem ? undefined : run.browser;
  const skipReason =
    resolution.reason ??
    (await gate(s, run.clients, run.config, run.target, gateBrowser, run.probe, run.options.refusedRoles));
  if (browserProblem && resolution.level && !skipReason)
    return {
      ...base,
      status: 'error',
      durationMs: 0,
      evidence: [],
      message: `needs Chromium: ${browserProblem}`,
      errorCode: 'ERR_BROWSER',
    };
  if (!resolution.level || skipReason) {
    return { ...base, status: 'skipped', durationMs: 0, evidence: [], skipReason: skipReason ?? 'not applicable' };
  }
  const level: Level = resolution.level;
  const declared = declaredLookup(s, resolution.requirements);
  const statusOf = statusByRequirement(declared, level);
  const recorder = new Recorder(run.redactor);
  const controller = new AbortController();
  const { limit: initial, unscaled, inBrowser } = scenarioTimeLimit(s, run);
  const limit = new TimeLimit(initial);
  const state = createContext({
    ...sharedContextInput(run),
    scenario: s,
    level,
    requirements: resolution.requirements,
    seed: scenarioSeed(run.seed, s.id),
    recorder,
    signal: controller.signal,
    statusOf,
    declared,
    timeLimitMs: initial,
    // A walk that goes on in the browser (the auto driver) gets the browser's time.
    onBrowserWalk: () => limit.lengthen(inBrowser),
    // A property's budget comes from the limit before the browser's factor: in a browser each case costs more, so
    // fewer run.
    propertyBudgetMs: unscaled * PROPERTY_BUDGET_SHARE,
  });
  const thrown = await runWithinLimit(s, state, recorder, controller, limit);
  noteImpliedCapabilities(s, run.target, recorder);
  noteTokenResponseDeviations(run.target, recorder);
  if (thrown instanceof CheckFailure) recorder.markFailure();
  const verdict = judge(thrown, state.findings, statusOf, limit.ms);
  const { status, message, failureKind, skipReason: skip, errorCode: code } = verdict;
  const { findings, log, walks } = state;
  return {
    ...base,
    status,
    durationMs: Math.round(performance.now() - started),
    evidence: recorder.evidence,
    ...(message ? { message } : {}),
    ...(failureKind ? { failureKind } : {}),
    ...(skip ? { skipReason: skip } : {}),
    ...(code ? { errorCode: code } : {}),
    ...(findings.length ? { findings } : {}),
    ...(log.length ? { log } : {}),
    ...(walks.length ? { walks } : {}),
  };
}

/**
 * Step 6: the selection through `runOne`, `concurrency` at once; exclusive scenarios after, one by
 * one. `finish` gets each result with its index in the selection.
 */
export async function runPool<S extends { exclusive?: boolean }, R>(
  selected: readonly S[],
  concurrency: number,
  runOne: (s: S) => Promise<R>,
  finish: (i: number, r: R) => void,
): Promise<void> {
  const indexed = selected.map((s, i) => [s, i] as const);
  const concurrent = indexed.filter(([s]) => !s.exclusive);
  let next = 0;
  const worker = async () => {
    while (next < concurrent.length) {
      const [s, i] = concurrent[next++]!;
      finish(i, await runOne(s));
    }
  };
  const width = Math.max(1, Math.min(concurrency, concurrent.length));
  await Promise.all(Array.from({ length: width }, worker));
  for (const [s, i] of indexed.filter(([x]) => x.exclusive)) finish(i, await runOne(s));
}

/**
 * The run: resolve the options, select, then every scenario gated, run and judged (runOne) in the
 * pool; each result marked against expectedFailures, redacted and handed to onResult as it ends.
 */
export async function runScenarios(options: RunnerOptions): Promise<RunOutcome> {
  const resolved = resolveRun(options);
  await settleKind(resolved);
  // The clients' default scope follows the kind (openid only for an OpenID provider).
  resolved.clients = resolveClients(resolved.config, resolved.target.kind.protocol);
  const run: Run = { ...resolved, probe: refreshProber(resolved) };
  const { redactor } = run;
  const expected = new Set(run.config.expectedFailures);
  const notices = unknownExpectedFailures(expected, options.scenarios);
  const selected = selectForRun(options);
  if (options.reportDir) await removeStaleScreenshots(options.reportDir);
  const results: ScenarioResult[] = new Array(selected.length);
  const finish = (i: number, r: ScenarioResult) => {
    results[i] = redactor.result(markExpected(r, expected));
    options.onResult?.(results[i]);
  };
  try {
    await runPool(selected, options.concurrency ?? DEFAULTS.concurrency, (s) => runOne(run, s), finish);
  } finally {
    await run.sharedBrowserContext.close();
    if (!options.browser) await run.browser.close();
  }
  // Tokens seen late may have appeared in earlier results: redact all once more.
  const needsLogin = selected.filter((s) => s.requires?.user).map((s) => s.id);
  const outage = run.traffic.outage();
  return {
    results: results.map((r) => redactor.result(r)),
    seed: run.seed,
    runs: run.runs,
    notices,
    needsLogin,
    ...(outage ? { outage: redactor.outage(outage) } : {}),
  };
}

function levelStatus(level: Level): Finding['status'] {
  return level === 'MUST' ? 'failed' : 'warning';
}

function markExpected(r: ScenarioResult, expected: ReadonlySet<string>): ScenarioResult {
  if (!expected.has(r.id)) return r;
  if (r.status === 'failed' || r.status === 'warning') return { ...r, expected: true };
  if (r.status === 'passed') return { ...r, unexpectedPass: true };
  return r;
}
