/**
 * defineScenario, the context a scenario runs with (ctx), and the types scenarios use
 * (docs/ARCHITECTURE.md). A scenario is one file: `suites/<area>/<name>.ts` default-exports
 * `defineScenario({ id: '<area>.<name>', ... })`.
 */
import type { CimdPublisher } from '../cimd/server.ts';
import { isOneOf } from '../../protocol/guards.ts';
import type * as fc from 'fast-check';
import type { Page } from 'playwright-core';
import type { FlawName } from '../../protocol/flaw-names.ts';
import type { Client } from '../config/load.ts';
import type { TargetConfig } from '../config/schema.ts';
import { HarnessError } from '../model/failures.ts';
import type { HttpClient } from '../http/client.ts';
import type { Params } from '../http/request.ts';
import type { JwtTools } from '../flows/jwt.ts';
import type { Hooks } from '../flows/hooks.ts';
import type { AuthorizeOptions, LoginDriver, LoginSession } from '../login/driver.ts';
import type { AuthorizeResult, Flows } from '../flows/types.ts';
import type { Pkce } from '../tokens/pkce.ts';
import {
  type ClientRole,
  PARTIES,
  type Requirement,
  type RequirementRef,
  declareRequirements,
} from '../model/requirements.ts';
import type { Evidence, FailureKind, Level, ProfileName, Severity } from '../model/results.ts';
import type { Capability, Target } from '../target/target.ts';

export type { Requirement, RequirementRef, Party, ClientRole } from '../model/requirements.ts';
export type { Capability, Target } from '../target/target.ts';
export type { Client } from '../config/load.ts';
export type * from '../model/results.ts';
export type { HttpResponse } from '../http/client.ts';
export type { Params } from '../http/request.ts';
export type { Pkce } from '../tokens/pkce.ts';
export type {
  AuthorizeOptions,
  AuthorizeOutcome,
  DeviceActivationOutcome,
  PageKind,
  PageVisit,
  RequestRecord,
  SessionChoice,
} from '../login/driver.ts';
/**
 * An IdP session a scenario holds: `authorize(role, params, { session })` with one shares its sign-in between those
 * walks only.
 */
export { LoginSession } from '../login/session.ts';
export type { Hooks } from '../flows/hooks.ts';
export type { Page as BrowserPage } from 'playwright-core';
export type { DeviceAuthorization, DeviceFlow, DeviceFlowOptions, DevicePoller, PollOptions } from '../flows/device.ts';
export { DEFAULT_POLL_INTERVAL_SECONDS, DecisionNotGiven, SLOW_DOWN_SECONDS } from '../flows/device.ts';
export { CheckFailure, JudgementError, PreconditionError, TargetServerError } from '../model/failures.ts';
export { GRANT } from '../target/target.ts';
export { describeOutcome } from '../flows/flows.ts';
/** A page's HTML read as a browser parses it (parse5), without running its scripts: forms, controls, text, metas. */
export { readPage } from '../login/html.ts';
export type { PageMeta, PageModel, PageReference } from '../login/page.ts';
export type { AuthorizeResult, CodeFlowOptions, CodeResult, Flows } from '../flows/types.ts';
export type { TokenSet } from '../flows/token-set.ts';

/** The target config's `resource` section (a protected resource, e.g. an MCP server). */
export type ProtectedResourceConfig = NonNullable<TargetConfig['resource']>;

export interface ScenarioRequires {
  /** Client roles the scenario exercises (config `clients.<role>`); missing ones skip it. */
  roles?: readonly ClientRole[];
  /**
   * Client roles the scenario uses when they are configured and does without otherwise (it chooses at run time, e.g.
   * a second confidential client, else the public one): never a reason to skip, but registered in a run that
   * registers its clients (`registration`), so that run has them.
   */
  optionalRoles?: readonly ClientRole[];
  /** A user who can log in (config `user`). */
  user?: boolean;
  /** Advertised capabilities (from discovery); any missing one skips it. */
  capabilities?: readonly Capability[];
  /** Chromium (ctx.browser); without one the scenario is skipped with the way to install it. */
  browser?: boolean;
}

export interface ScenarioDefinition<K extends string = string> {
  /** Stable id `area.name`; the file is `suites/area/name.ts`. */
  id: string;
  /** The spec sentence it checks, as a user would say it. */
  title: string;
  /**
   * What it enforces, by name: `{ single: { spec: 'RFC 6749', section: '4.1.2', level: 'MUST', party: 'server' } }`.
   * The profile's strictest level among those that bind the server decides failed vs warning;
   * checks cite one as `per: ctx.req.single`.
   */
  requirements: Readonly<Record<K, Requirement>>;
  severity: Severity;
  /**
   * What kind of target its rule binds: "oauth2" every OAuth 2.0 authorization server (OpenID providers included),
   * "oidc" OpenID providers only (OIDC Core, OIDC Discovery, ID tokens, userinfo): skipped, with the reason, on an
   * OAuth 2.0 authorization server that is not one. Every built-in scenario says; absent means "oauth2".
   */
  appliesTo?: AppliesTo;
  requires?: ScenarioRequires;
  /** Planted flaws (protocol/flaw-names.ts, switched in reference/flaws.ts) this scenario must detect. */
  catches?: readonly FlawName[];
  /** Overrides the run's per-scenario time limit. */
  timeoutMs?: number;
  /** Must not overlap with any other scenario (runs alone, after the others). */
  exclusive?: boolean;
  run(ctx: ScenarioContext<K>): Promise<void> | void;
}

/** The kinds of target a scenario applies to (ScenarioDefinition.appliesTo). */
export const APPLIES_TO = ['oauth2', 'oidc'] as const;
export type AppliesTo = (typeof APPLIES_TO)[number];

const SCENARIO = Symbol.for('idp-conformance.scenario');

export interface Scenario extends Omit<ScenarioDefinition, 'requirements' | 'run'> {
  readonly area: string;
  /** The declared requirements, in declaration order, each with its name. */
  readonly requirements: readonly RequirementRef[];
  /** The same by name: what checks cite as `per` (also ctx.req). */
  readonly req: Readonly<Record<string, RequirementRef>>;
  run(ctx: ScenarioContext): Promise<void> | void;
  readonly [SCENARIO]: true;
}

export const SCENARIO_ID = /^[a-z0-9]+(?:-[a-z0-9]+)*\.[a-z0-9]+(?:-[a-z0-9]+)*$/;

const LEVELS = ['MUST', 'SHOULD', 'MAY'];

/** ctx.req / scenario.req: a name the scenario did not declare throws instead of reading undefined. */
export function requirementTable(
  id: string,
  declared: Readonly<Record<string, RequirementRef>>,
): Readonly<Record<string, RequirementRef>> {
  return new Proxy(declared, {
    get(target, name) {
      if (typeof name !== 'string' || name === 'then' || name === 'toJSON') return Reflect.get(target, name);
      if (!Object.hasOwn(target, name)) {
        throw new HarnessError(
          `scenario ${id} cites the requirement "${name}", which it does not declare (it ` +
            `declares ${Object.keys(target).join(', ')})`,
        );
      }
      return target[name];
    },
  });
}

/** Declare a scenario. Throws at load time when the declaration itself is wrong. */
export function defineScenario<K extends string>(definition: ScenarioDefinition<K>): Scenario {
  if (isScenario(definition)) return definition;
  const where = `scenario ${JSON.stringify(definition?.id)}`;
  if (typeof definition?.id !== 'string' || !SCENARIO_ID.test(definition.id)) {
    throw new HarnessError(`${where}: id must be "area.name" in lower-case kebab parts, e.g. "pkce.verifier-mismatch"`);
  }
  if (typeof definition.title !== 'string' || !definition.title.trim())
    throw new HarnessError(`${where}: title is required`);
  const example = `{ name: { spec: 'RFC 6749', section: '4.1.2', level: 'MUST', party: 'server' } }`;
  const declared = definition.requirements as Readonly<Record<string, Requirement>> | undefined;
  if (!declared || typeof declared !== 'object' || Array.isArray(declared) || Object.keys(declared).length === 0) {
    throw new HarnessError(`${where}: requirements must name at least one requirement, e.g. ${example}`);
  }
  for (const [name, r] of Object.entries(declared)) {
    if (!r || typeof r.spec !== 'string' || typeof r.section !== 'string' || !LEVELS.includes(r.level)) {
      throw new HarnessError(
        `${where}: requirement "${name}" needs spec, section and level (MUST, SHOULD or MAY), e.g. ${example}`,
      );
    }
    if (!isOneOf(PARTIES, r.party)) {
      throw new HarnessError(
        `${where}: requirement "${name}" must say which party its sentence binds (party: 'server' or 'client')`,
      );
    }
  }
  if (typeof definition.run !== 'function') throw new HarnessError(`${where}: run(ctx) is required`);
  if (definition.appliesTo !== undefined && !isOneOf(APPLIES_TO, definition.appliesTo)) {
    throw new HarnessError(
      `${where}: appliesTo must be "oauth2" (every OAuth 2.0 authorization server) or "oidc" (OpenID providers only)`,
    );
  }
  const refs = declareRequirements(declared);
  return Object.freeze({
    ...definition,
    requirements: Object.freeze(Object.values(refs)),
    req: requirementTable(definition.id, refs),
    run: definition.run as Scenario['run'],
    area: definition.id.split('.')[0]!,
    [SCENARIO]: true as const,
  });
}

export function isScenario(value: unknown): value is Scenario {
  return typeof value === 'object' && value !== null && SCENARIO in value && value[SCENARIO] === true;
}

/** Chromium for a scenario that declares `requires.browser` (harness/login/browser.ts). */
export interface ScenarioBrowser {
  /** The browser login driver: the config's steps when login.driver is "browser", else its default walk. */
  readonly login: LoginDriver;
  /**
   * ctx.authorize in the browser: the redirect to redirect_uri is caught, never loaded; `requests` lists every request
   * the page made.
   */
  authorize(role: ClientRole, params?: Params, options?: AuthorizeOptions): Promise<AuthorizeResult>;
  /** ctx.flows with the browser as the login driver (code flows, device activation). */
  readonly flows: Flows;
  /** A page in a fresh browser context (its own cookies), closed when the scenario ends. */
  newPage(): Promise<Page>;
  /** A screenshot of the page, saved in the report folder and added as evidence. */
  screenshot(page: Page, label: string): Promise<void>;
  /**
   * Where a scenario's own page for the browser listens (config browser.framingHost / framingPort; default 127.0.0.1,
   * port 0).
   */
  readonly framing: { host: string; port: number };
}

export interface PropertyOptions<T = unknown> {
  /**
   * This property's run count when the run gives no --runs (default: ctx.runs). A property whose
   * every run costs a login sets fewer; --runs N, when given, overrides it.
   */
  runs?: number;
  label?: string;
  /**
   * How long its cases may take in all (ms). Default: 60% of the scenario's time limit before the
   * browser's factor, less what the scenario used before. The cases that fit are run and judged;
   * how many ran is noted.
   */
  budgetMs?: number;
  /** How the counterexample reads in the report (default: fast-check's stringify, clipped). */
  show?(value: T): string;
}

export interface ScenarioContext<K extends string = string> {
  readonly id: string;
  /** The scenario's declared requirements by name: a check's `per` (e.g. `per: ctx.req.single`). */
  readonly req: Readonly<Record<K, RequirementRef>>;
  readonly target: Target;
  readonly profile: ProfileName;
  /** The scenario's level in this profile. */
  readonly level: Level;
  /**
   * Whether one of the scenario's requirements counts in this profile for the roles the scenario
   * exercises (and binds the server): a check that only that document demands runs only when it does.
   */
  applies(requirement: RequirementRef): boolean;
  /** This scenario's seed (derived from the run's --seed and the id) and the run's --runs (or the default). */
  readonly seed: number;
  readonly runs: number;
  readonly clients: Partial<Record<ClientRole, Client>>;
  /** A configured client; the runner has already skipped the scenario if `requires.roles` lacks it. */
  client(role: ClientRole): Client;
  readonly user?: { username: string; password: string };
  readonly http: HttpClient;
  /** The configured login driver (form, or browser). */
  readonly login: LoginDriver;
  /** Chromium: only for a scenario with `requires.browser` (the runner has skipped it when there is none). */
  readonly browser: ScenarioBrowser;
  /**
   * Send the user through the authorization endpoint as `role`: response_type=code, client_id,
   * redirect_uri, scope and a random state by default; `params` add or replace (undefined removes).
   * Returns the redirect to redirect_uri (never fetched) or the page the login stopped at.
   */
  authorize(role: ClientRole, params?: Params, options?: AuthorizeOptions): Promise<AuthorizeResult>;
  /**
   * A new login session at the IdP: pass it as `session` to ctx.authorize (or a flow) and the
   * IdP's cookies carry over from one authorization to the next, as in one browser.
   */
  loginSession(label?: string): LoginSession;
  /** The target config's test hooks (hooks.rotateKeys); a scenario needing an absent one skips. */
  readonly hooks: Hooks;
  /**
   * The config's `registration.initialAccessToken` (RFC 7591 §3): what a scenario that registers clients of its own
   * sends as a Bearer token, as the run's own registration does.
   */
  readonly initialAccessToken?: string;
  /**
   * The config's protected resource (RFC 9728; an MCP server's endpoint): its URL, metadata URL, a request that needs
   * a token, and another resource the server issues tokens for. Absent when the config names none.
   */
  readonly resource?: ProtectedResourceConfig;
  /**
   * The run's Client ID Metadata Document listener (draft-ietf-oauth-client-id-metadata-document): publish a document
   * for this run and get its URL, a client_id. Undefined when the run has none (no `cimd` config section and not a
   * loopback target under an MCP profile or advertising CIMD support).
   */
  readonly cimd?: CimdPublisher;
  /** The authorization request URL ctx.authorize would open (same defaults), and its parameters; nothing is sent. */
  authorizationUrl(role: ClientRole, params?: Params): { url: string; request: Record<string, string> };
  readonly flows: Flows;
  readonly pkce: { create(): Pkce; s256(verifier: string): string };
  /** Random URL-safe text (state, nonce, bogus tokens). */
  random(bytes?: number): string;
  readonly jwt: JwtTools;
  readonly evidence: {
    add(e: Evidence): void;
    note(text: string, label?: string): void;
    /**
     * Marks the last HTTP exchange so far as the one that decides the verdict (reports open it and
     * build the reproduce block from it). Needed only when later exchanges follow it before the
     * check fails: the runner marks the last exchange before every failed check by itself.
     */
    markDecisive(): void;
  };
  log(message: string): void;
  /** Aborted when the scenario times out. */
  readonly signal: AbortSignal;
  /**
   * Waiting out a lifetime. `allowed`: the run allows waits (--with-waits, config timeouts.withWaits); a scenario
   * that must wait skips without it, saying how long it would wait. `wait(ms, why)`: sleeps `ms` (the scenario's time
   * limit grows by as much), noting why in the evidence; it ends early, throwing, when the scenario's signal aborts.
   */
  readonly waits: { readonly allowed: boolean; wait(ms: number, why: string): Promise<void> };
  /** The config's `codeLifetimeSeconds`: the target's documented authorization code lifetime, when the user gave it. */
  readonly codeLifetimeSeconds?: number;
  /**
   * Run a check without stopping: a CheckFailure is recorded as a finding (its level decided by
   * `requirement`, else the scenario's) and the scenario goes on. Returns whether it passed.
   */
  softly(check: () => unknown, options?: { requirement?: RequirementRef }): Promise<boolean>;
  /**
   * Record a warning that is no requirement's verdict (e.g. "the target failed with HTTP 5xx" in a
   * race): a finding of its own, so the scenario never passes silently over it.
   */
  warn(message: string, kind?: FailureKind): void;
  /** The scenario does not apply after all (found at run time): skipped with this reason. */
  skip(reason: string): never;
  /**
   * A property over generated values, seeded by ctx.seed: the predicate throws a CheckFailure
   * for a counterexample. On failure the shrunk counterexample, seed, runs and a replay command
   * become evidence, and the transcripts kept are those of the failing run.
   */
  property<T>(
    arbitrary: fc.Arbitrary<T>,
    predicate: (value: T) => Promise<void>,
    options?: PropertyOptions<T>,
  ): Promise<void>;
}

export { DpopKey, createDpopKey, jwkThumbprint, type DpopProofOptions } from '../tokens/dpop.ts';
export { jwkOf } from '../tokens/jws-sign.ts';
export {
  CLIENT_ASSERTION_TYPE,
  assertionFields,
  clientAssertion,
  type ClientAssertionOptions,
} from '../tokens/client-assertion.ts';
export { requestObject, requestObjectAlg, type RequestObjectOptions } from '../tokens/request-object.ts';
export { pushRequest, pushedAuthorizationUrl, pushedRequestOf, requiresPar, type PushedRequest } from '../flows/par.ts';
export type { RedirectRecord } from '../login/driver.ts';
