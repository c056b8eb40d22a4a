/**
 * The runner: the run plan (run-plan.ts) made into a run for the target (run-setup.ts), the target's
 * kind settled (run-probes.ts), the selection (selection.ts) scheduled, `concurrency` at once with
 * exclusive scenarios after, and each scenario through its steps: level, gate (gating.ts), a fresh
 * ctx within its time limit (time-limit.ts), its status (scenario-status.ts), the result redacted.
 * It is handed its scenarios; it never imports suites/.
 */
import { createContext } from './context.ts';
import { PROPERTY_BUDGET_SHARE } from './context-property.ts';
import { CheckFailure, HarnessError } from './failures.ts';
import { resolveClients } from './config.ts';
import { gate } from './gating.ts';
import { Recorder } from './recorder.ts';
import { type RequirementRef, resolveLevel } from './requirements.ts';
import type { Level, ResolvedRequirement, ScenarioResult } from './results.ts';
import { refreshProber, settleKind } from './run-probes.ts';
import type { ClientRole } from './requirements.ts';
import type { RunPlan } from './run-plan.ts';
import { type Run, type RunOutcome, resolveRun, scenarioSeed } from './run-setup.ts';
import type { Scenario } from './scenario.ts';
import { noteImpliedCapabilities, noteTokenResponseDeviations } from './scenario-notes.ts';
import { judge, markExpected, statusByRequirement } from './scenario-status.ts';
import { removeStaleScreenshots } from './screenshots.ts';
import { selectForRun, unknownExpectedFailures } from './selection.ts';
import type { Target } from './target.ts';
import { TimeLimit, runWithinLimit, scenarioTimeLimit } from './time-limit.ts';

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
  // CHROMIUM_PATH set wrong: a browser scenario that could otherwise run is a set-up error, never a silent skip.
  const browserProblem = s.requires?.browser ? run.browser.misconfigured : undefined;
  const gateBrowser = browserProblem ? undefined : run.browser;
  const skipReason =
    resolution.reason ??
    (await gate(s, run.clients, plan.config, run.target, gateBrowser, run.probe, run.refusedRoles));
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
 * The run: the plan's run made for the target (resolveRun), the kind settled, the selection, then every scenario
 * gated, run and judged (runOne) in the pool; each result marked against expectedFailures, redacted and handed to
 * onResult as it ends. `refusedRoles`: the roles the IdP refused to register (their scenarios skip with the reason).
 */
export async function runScenarios(
  plan: RunPlan,
  target: Target,
  refusedRoles?: ReadonlyMap<ClientRole, string>,
): Promise<RunOutcome> {
  const resolved = resolveRun(plan, target, refusedRoles);
  await settleKind(resolved);
  // The clients' default scope follows the kind (openid only for an OpenID provider).
  resolved.clients = resolveClients(plan.config, target.kind.protocol);
  const run: Run = { ...resolved, probe: refreshProber(resolved) };
  const { redactor } = plan;
  const expected = new Set(plan.config.expectedFailures);
  const notices = unknownExpectedFailures(expected, plan.scenarios);
  const selected = selectForRun(plan);
  if (plan.reportDir) await removeStaleScreenshots(plan.reportDir);
  const results: ScenarioResult[] = new Array(selected.length);
  const finish = (i: number, r: ScenarioResult) => {
    results[i] = redactor.result(markExpected(r, expected));
    plan.onResult?.(results[i]);
  };
  try {
    await runPool(selected, plan.concurrency, (s) => runOne(run, s), finish);
  } finally {
    await run.sharedBrowserContext.close();
    if (!plan.browser) await run.browser.close();
  }
  // Tokens seen late may have appeared in earlier results: redact all once more.
  const needsLogin = selected.filter((s) => s.requires?.user).map((s) => s.id);
  const outage = run.traffic.outage();
  return {
    results: results.map((r) => redactor.result(r)),
    notices,
    needsLogin,
    ...(outage ? { outage: redactor.outage(outage) } : {}),
  };
}
