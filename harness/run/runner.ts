/**
 * The runner: the run plan (plan.ts) completed with the target, its kind settled (probes.ts), and the live handles
 * (setup.ts); the plan's selection scheduled, `concurrency` at once with exclusive scenarios after, and each scenario
 * through its steps: level, gate (gating.ts), a fresh ctx within its time limit (context/time-limit.ts), its status
 * (scenario/status.ts), the result redacted.
 * It is handed its scenarios; it never imports suites/.
 */
import type { CimdPublisher } from '../cimd/server.ts';
import { createContext } from '../context/context.ts';
import { PROPERTY_BUDGET_SHARE } from '../context/property.ts';
import { CheckFailure, HarnessError } from '../model/failures.ts';
import { gate, gateMayLogIn } from './gating.ts';
import { Recorder } from '../http/recorder.ts';
import { type RequirementRef, resolveLevel } from '../model/requirements.ts';
import type { Level, ResolvedRequirement, ScenarioResult } from '../model/results.ts';
import { refreshProber, settleKind } from './probes.ts';
import { type Registered, type RunPlan, planTarget } from './plan.ts';
import { type Run, type RunOutcome, openRun, runOf, scenarioSeed, userLanes } from './setup.ts';
import type { Scenario } from '../scenario/scenario.ts';
import { noteImpliedCapabilities, noteTokenResponseDeviations } from '../scenario/notes.ts';
import { judge, markExpected, statusByRequirement } from '../scenario/status.ts';
import { removeStaleScreenshots } from '../context/screenshots.ts';
import { unknownExpectedFailures } from './selection.ts';
import type { RunStop } from '../http/traffic.ts';
import type { Capability, Target } from '../target/target.ts';
import { TimeLimit, runWithinLimit, scenarioTimeLimit } from '../context/time-limit.ts';

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

/** Step 5, per scenario: resolve its level, gate it, run it in a fresh ctx within its limit, judge it. */
async function runOne(run: Run, s: Scenario): Promise<ScenarioResult> {
  const started = performance.now();
  const { plan } = run;
  const resolution = resolveLevel(s.requirements, plan.profile, s.requires?.roles ?? [], plan.links);
  const base = resultBase(s, resolution);
  // The run stopped (the target unreachable, its time limit reached: http/traffic.ts): not started, not waited for.
  const stopped = run.traffic.stop.error;
  if (stopped && resolution.level)
    return { ...base, status: 'error', durationMs: 0, evidence: [], message: stopped.message, errorCode: stopped.code };
  // CHROMIUM_PATH set wrong: a browser scenario that could otherwise run is a set-up error, never a silent skip.
  const browserProblem = s.requires?.browser ? run.browser.misconfigured : undefined;
  const gateBrowser = browserProblem ? undefined : run.browser;
  const skipReason =
    resolution.reason ??
    (await gate(s, plan.clients, plan.config, plan.target, gateBrowser, run.probe, plan.refusedRoles));
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
  const recorder = new Recorder(plan.redactor);
  const controller = new AbortController();
  const { limit: initial, unscaled, inBrowser } = scenarioTimeLimit(s, plan);
  const limit = new TimeLimit(initial);
  const state = createContext({
    run,
    scenario: s,
    level,
    requirements: resolution.requirements,
    seed: scenarioSeed(plan.seed, s.id),
    recorder,
    signal: controller.signal,
    statusOf,
    declared,
    timeLimitMs: initial,
    // A walk that goes on in the browser (the auto driver) gets the browser's time.
    onBrowserWalk: () => limit.lengthen(inBrowser),
    // A wait (ctx.waits.wait) is time the scenario spends on purpose: the limit grows by it.
    onWait: (ms) => limit.lengthen(limit.ms + ms),
    // A property's budget comes from the limit before the browser's factor: in a browser each case costs more, so
    // fewer run.
    propertyBudgetMs: unscaled * PROPERTY_BUDGET_SHARE,
  });
  const thrown = await runWithinLimit(s, state, recorder, controller, limit);
  noteImpliedCapabilities(s, run.target, recorder);
  noteTokenResponseDeviations(run.target, recorder);
  if (thrown instanceof CheckFailure) recorder.markFailure();
  const verdict = judge(thrown, state.findings, statusOf, limit.ms);
  const { status, message, failureKind, skipReason: skip, errorCode: code, cutShort } = verdict;
  // The failure stands; what stopped the scenario afterwards is kept in its evidence.
  if (cutShort)
    recorder.add({ kind: 'note', text: `After this failure was established, the scenario ended: ${cutShort}` });
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

/** What runPool needs to know of a scenario: whether it runs alone, and whether it acts as the user. */
export interface Poolable {
  exclusive?: boolean;
  requires?: { user?: boolean; capabilities?: readonly Capability[] };
}

/**
 * The state a scenario shares with the others on the target, as a lock name: a scenario that acts as the user holds
 * grants and sessions of the user, which another scenario's authorization or sign-in may end (a server may revoke the
 * user's earlier grant for a client, or end the user's other sessions: both documented behaviours). Such scenarios
 * share the lock of a user; so does a scenario whose gate may sign the user in (a refresh probe, gateMayLogIn); any
 * other takes none. With several users configured (`users`) there is a lock per user (runPool's lanes).
 */
export function sharedStateOf(s: Poolable): string | undefined {
  return s.requires?.user || gateMayLogIn(s.requires) ? 'user' : undefined;
}

/** How runPool hands a scenario's result back, and which results met interference. */
export interface PoolOptions<R> {
  /**
   * Whether a result of a run that overlapped others may be the mark of interference (an error): such a scenario is
   * run again alone after the pool, and the alone result, `rerun(alone, first)`, is its verdict.
   */
  interfered?: (r: R) => boolean;
  rerun?: (alone: R, first: R) => R;
  /**
   * The users a scenario that takes the user lock may act as (default 1): each is a lock of its own, and runOne is
   * told the lane (0 … lanes − 1) it runs in. A scenario that takes no lock, and every run after the pool, runs in 0.
   */
  lanes?: number;
}

/**
 * Step 6: the selection through `runOne`, `concurrency` at once, never two that share state (sharedStateOf) as the same
 * user at the same time: a slot whose next scenarios wait for a user takes the first one that does not, and the wait
 * is before the scenario starts (its time limit does not run). A scenario holds one user's lock at most, so none waits
 * for another in a circle. A result that met interference (options.interfered, in a run that overlapped another) is
 * run again alone after the pool; exclusive scenarios after that, one by one. `finish` gets each verdict with its
 * index in the selection.
 */
export async function runPool<S extends Poolable, R>(
  selected: readonly S[],
  concurrency: number,
  runOne: (s: S, lane: number) => Promise<R>,
  finish: (i: number, r: R) => void,
  options: PoolOptions<R> = {},
): Promise<void> {
  const indexed = selected.map((s, i) => [s, i] as const);
  const pending = indexed.filter(([s]) => !s.exclusive);
  /** Which user lanes are held, by index. */
  const busy: boolean[] = new Array(Math.max(1, options.lanes ?? 1)).fill(false);
  const freeLane = () => busy.indexOf(false);
  /** The scenarios in flight; each learns whether another ran beside it at any moment. */
  const running = new Set<{ overlapped: boolean }>();
  let wake: () => void = () => {};
  let released = new Promise<void>((resolve) => (wake = resolve));
  const again: (readonly [S, number, R])[] = [];
  const takeNext = () => {
    const at = pending.findIndex(([s]) => sharedStateOf(s) === undefined || freeLane() >= 0);
    return at < 0 ? undefined : pending.splice(at, 1)[0];
  };
  const worker = async () => {
    while (pending.length > 0) {
      const next = takeNext();
      if (!next) {
        // Every scenario left waits for a user another slot holds: wait for a release, then look again.
        await released;
        continue;
      }
      const [s, i] = next;
      const lane = sharedStateOf(s) === undefined ? undefined : freeLane();
      if (lane !== undefined) busy[lane] = true;
      const me = { overlapped: running.size > 0 };
      for (const other of running) other.overlapped = true;
      running.add(me);
      try {
        const r = await runOne(s, lane ?? 0);
        if (me.overlapped && options.interfered?.(r)) again.push([s, i, r]);
        else finish(i, r);
      } finally {
        running.delete(me);
        if (lane !== undefined) busy[lane] = false;
        const waking = wake;
        released = new Promise<void>((resolve) => (wake = resolve));
        waking();
      }
    }
  };
  const width = Math.max(1, Math.min(concurrency, pending.length));
  await Promise.all(Array.from({ length: width }, worker));
  for (const [s, i, first] of again) {
    const alone = await runOne(s, 0);
    finish(i, options.rerun ? options.rerun(alone, first) : alone);
  }
  for (const [s, i] of indexed.filter(([x]) => x.exclusive)) finish(i, await runOne(s, 0));
}

/**
 * The verdict of a scenario run again alone after an error in a run beside others: the alone result, with a log line
 * saying so. The first run's error proved nothing (a failure would not be run again: it stands), so nothing is lost.
 */
export function rerunAlone(alone: ScenarioResult, first: ScenarioResult): ScenarioResult {
  const why = `${first.status}${first.message ? `: ${first.message}` : ''}`;
  const line = `run again alone after the others: beside other scenarios it ended ${why}`;
  return { ...alone, log: [line, ...(alone.log ?? [])] };
}

/**
 * The run: the live handles opened (openRun), the plan completed with the target (planTarget; where a guess leaves
 * it open, once more with the kind settleKind found), then the plan's selection gated, run and judged (runOne) in the
 * pool; each result marked against expectedFailures, redacted and handed to onResult as it ends. `registered`: the
 * clients registered for the run (the roles the IdP refused skip with the reason); `stop`: the run's (runSuite's).
 */
export async function runScenarios(
  before: RunPlan,
  target: Target,
  registered?: Registered,
  stop?: RunStop,
  cimd?: CimdPublisher,
): Promise<RunOutcome> {
  const live = openRun(before, stop, cimd);
  const guessed = planTarget(before, { target, registered });
  const kind = await settleKind(runOf(guessed, live));
  const plan = kind ? planTarget(before, { target, registered, kind }) : guessed;
  const shared = runOf(plan, live);
  // One lane per configured user (user, then users), each with its own session; the refresh probe's answers are the
  // run's, whichever user asked first.
  const users = userLanes(shared);
  const probes: Parameters<typeof refreshProber>[1] = new Map();
  const lanes: Run[] = users.lanes.map((lane) => ({ ...lane, probe: refreshProber(lane, probes) }));
  const run = lanes[0]!;
  const { redactor } = plan;
  const expected = new Set(plan.config.expectedFailures);
  const notices = unknownExpectedFailures(expected, plan.scenarios);
  const selected = plan.selection.scenarios;
  if (plan.reportDir) await removeStaleScreenshots(plan.reportDir);
  const results: ScenarioResult[] = new Array(selected.length);
  const finish = (i: number, r: ScenarioResult) => {
    results[i] = redactor.result(markExpected(r, expected));
    plan.onResult?.(results[i]);
  };
  try {
    await runPool(selected, plan.concurrency, (s, lane) => runOne(lanes[lane] ?? run, s), finish, {
      // Against a target that stopped answering, running its errors again alone would only repeat them.
      interfered: (r) => r.status === 'error' && !run.traffic.outage(),
      rerun: rerunAlone,
      lanes: lanes.length,
    });
  } finally {
    await run.sharedBrowserContext.close();
    await users.close();
    if (!plan.browser) await run.browser.close();
  }
  // Tokens seen late may have appeared in earlier results: redact all once more.
  const needsLogin = selected.filter((s) => s.requires?.user).map((s) => s.id);
  const outage = run.traffic.outage();
  return {
    results: results.map((r) => redactor.result(r)),
    notices,
    needsLogin,
    plan,
    ...(outage ? { outage: redactor.outage(outage) } : {}),
  };
}
