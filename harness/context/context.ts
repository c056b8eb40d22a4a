/**
 * Builds the ctx one scenario runs with (harness/scenario/scenario.ts describes it): the login side
 * (context-login.ts), the properties (context-property.ts), ctx.softly, the hooks and the evidence
 * put together with the scenario's identity, requirements, seed and helpers, and ctx.flows over them.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Activity } from './activity.ts';
import { type LoginParts, browserToolsMaker, loginParts } from './login.ts';
import { propertyRunner } from './property.ts';
import type { ContextInput, ContextState, Scope } from './scope.ts';
import { CheckFailure, SkipSignal } from '../model/failures.ts';
import { Authorizer, createFlows } from '../flows/flows.ts';
import { createHooks } from '../flows/hooks.ts';
import type { Recorder } from '../http/recorder.ts';
import { JwtTools } from '../flows/jwt.ts';
import { LoginSession } from '../login/session.ts';
import { createPkce, randomToken, s256 } from '../tokens/pkce.ts';
import type { ScenarioBrowser, ScenarioContext } from '../scenario/scenario.ts';

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

/** ctx.hooks: the config's hooks, with the scenario's time limit and signal, noting into its evidence. */
function scenarioHooks({ input, recorder }: Scope): ScenarioContext['hooks'] {
  return createHooks(input.run.plan.config, {
    timeoutMs: input.run.plan.requestTimeoutMs,
    signal: input.signal,
    fetch: input.run.plan.fetch,
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

/** ctx.waits: whether the run allows waits, and a wait the scenario's time limit makes room for and its signal ends. */
function waits({ input, recorder }: Scope): ScenarioContext['waits'] {
  return {
    allowed: input.run.plan.withWaits,
    async wait(ms, why) {
      const waitMs = Math.max(0, Math.ceil(ms));
      input.onWait?.(waitMs);
      await sleep(waitMs, undefined, { signal: input.signal });
      recorder.add({ kind: 'note', text: `Waited ${(waitMs / 1000).toFixed(1)} s: ${why}` });
    },
  };
}

/** ctx without flows: every member but the browser tools, which `browser` makes on first use. */
function contextBase(scope: Scope, parts: LoginParts, browser: () => ScenarioBrowser): Omit<ScenarioContext, 'flows'> {
  const { input, recorder, log, findings } = scope;
  const { scenario } = input;
  const { target, plan } = input.run;
  const { config } = plan;
  const jwt = new JwtTools(parts.http, target);
  return {
    id: scenario.id,
    target,
    profile: plan.profile,
    level: input.level,
    req: scenario.req,
    applies: (requirement) => input.declared(requirement).applies,
    seed: input.seed,
    runs: plan.runs,
    clients: input.run.clients,
    client: parts.client,
    ...(config.user ? { user: config.user } : {}),
    http: parts.http,
    get login() {
      return parts.login();
    },
    authorizationUrl: parts.authorizationUrl,
    authorize: new Authorizer({ ...parts.authorizing, driver: parts.rawLogin }).authorize,
    loginSession: (label) => new LoginSession(label),
    hooks: scenarioHooks(scope),
    ...(config.registration?.initialAccessToken ? { initialAccessToken: config.registration.initialAccessToken } : {}),
    ...(config.resource ? { resource: config.resource } : {}),
    ...(input.run.cimd ? { cimd: input.run.cimd } : {}),
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
    waits: waits(scope),
    ...(config.codeLifetimeSeconds === undefined ? {} : { codeLifetimeSeconds: config.codeLifetimeSeconds }),
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

export function createContext(input: ContextInput): ContextState {
  // When the run stops (harness/http/traffic.ts), what the scenario is waiting for is aborted too.
  input = { ...input, signal: AbortSignal.any([input.signal, input.run.traffic.stop.signal]) };
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
