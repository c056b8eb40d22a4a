/**
 * A scenario's time budget: its limit (its own or the run's, times BROWSER_TIME_FACTOR when it logs
 * in through Chromium), the limit a walk going on in the browser may lengthen, and the scenario run
 * within it, aborted with what was under way when the limit is reached.
 */
import { reportingBuilt } from '../redact/built.ts';
import type { TargetConfig } from '../config/load.ts';
import type { createContext } from './context.ts';
import { ScenarioTimeoutError } from '../model/failures.ts';
import type { Recorder } from '../http/recorder.ts';
import type { ScenarioPlan } from './scope.ts';
import type { Scenario } from '../scenario/scenario.ts';

/**
 * How much longer a scenario may take when it logs in through Chromium (login.driver "browser",
 * or a browser scenario): a script-heavy IdP's login costs seconds in a browser. It scales the
 * default limit and a scenario's own; an explicit timeouts.scenarioMs (or --timeout) is
 * taken as given.
 */
export const BROWSER_TIME_FACTOR = 3;

/**
 * A scenario's time limit: its own or the run's default, times BROWSER_TIME_FACTOR when it logs
 * in through Chromium; an explicit timeouts.scenarioMs is taken as given. `unscaled` is the limit
 * before the factor (a property's budget comes from it). Under the auto driver a scenario starts
 * with the unscaled limit and gets `inBrowser` once one of its walks goes on in the browser.
 */
export function scenarioTimeLimit(
  s: Pick<Scenario, 'timeoutMs' | 'requires'>,
  run: Pick<ScenarioPlan, 'explicitTimeoutMs' | 'timeoutMs'> & { config: Pick<TargetConfig, 'login'> },
): { limit: number; unscaled: number; inBrowser: number } {
  const browserAlways = run.config.login.driver === 'browser' || s.requires?.browser === true;
  const own = s.timeoutMs !== undefined || run.explicitTimeoutMs === undefined;
  const unscaled = own ? (s.timeoutMs ?? run.timeoutMs) : run.timeoutMs;
  const inBrowser = own ? unscaled * BROWSER_TIME_FACTOR : run.timeoutMs;
  return { limit: browserAlways ? inBrowser : unscaled, unscaled, inBrowser };
}

/** A scenario's time limit that a walk going on in the browser may lengthen (the auto driver). */
export class TimeLimit {
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
export async function runWithinLimit(
  s: Scenario,
  state: ReturnType<typeof createContext>,
  recorder: Recorder,
  controller: AbortController,
  limit: TimeLimit,
): Promise<unknown> {
  try {
    await Promise.race([
      // What the scenario builds (request objects, assertions, proofs) is told to the redactor (built.ts).
      Promise.resolve().then(() => reportingBuilt(recorder.redactor, () => s.run(state.ctx))),
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
