/**
 * ctx.property: a fast-check property run within its time budget (its own, else a share of the
 * scenario's limit), each case judged while the budget lasts (PropertyCases), a case the target
 * answered with HTTP 5xx set aside as one warning, and the counterexample as evidence with the
 * options that replay it (run once more for its screenshots).
 */
import * as fc from 'fast-check';
import type { ContextInput, Evidence, Scope } from './scope.ts';
import { CheckFailure } from '../model/failures.ts';
import type { Recorder } from '../http/recorder.ts';
import type { ScenarioPlan } from './scope.ts';
import type { PropertyOptions, ScenarioContext } from '../scenario/scenario.ts';

/** The share of a scenario's time limit a property may use by default (the rest is for its set-up and judgement). */
export const PROPERTY_BUDGET_SHARE = 0.6;

/**
 * The options that replay a scenario's properties exactly: the run seed (the scenario's own seed
 * is derived from it and the id) and --runs when the run gave it (else each property's default).
 */
export function replayOptions(plan: Pick<ScenarioPlan, 'seed' | 'runs' | 'runsGiven'>, id: string): string {
  return `--seed ${plan.seed}${plan.runsGiven ? ` --runs ${plan.runs}` : ''} --only ${id}`;
}

const MAX_SHOWN = 2000;
const clip = (text: string): string =>
  text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}… (${text.length - MAX_SHOWN} more characters)` : text;

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
  const found = details.counterexample;
  const shown = found ? clip(options.show ? options.show(found[0]) : fc.stringify(found[0])) : '(none)';
  recorder.add({
    kind: 'counterexample',
    ...(options.label ? { label: options.label } : {}),
    seed: input.seed,
    runs,
    ...(details.counterexamplePath ? { path: details.counterexamplePath } : {}),
    value: shown,
    replay: replayOptions(input.run.plan, input.scenario.id),
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
export function propertyRunner(scope: Scope): ScenarioContext['property'] {
  const { input, recorder } = scope;
  return async <T>(arbitrary: fc.Arbitrary<T>, predicate: (value: T) => Promise<void>, options = {}) => {
    const opts: PropertyOptions<T> = options;
    const { plan } = input.run;
    const runs = plan.runsGiven ? plan.runs : (opts.runs ?? plan.runs);
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
