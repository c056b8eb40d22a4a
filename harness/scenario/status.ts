/**
 * A scenario's status: what a thrown error makes of it (sorted on the error's stable code), the worst
 * of that and its findings (judge), a failure's status from the level of the requirement it names,
 * and the result marked against the config's expectedFailures.
 */
import { CheckFailure, RunStoppedError, describeError, errorCode } from '../model/failures.ts';
import { browserTrouble } from '../login/walk-errors.ts';
import type { RequirementRef } from '../model/requirements.ts';
import type {
  ErrorCode,
  FailureKind,
  Finding,
  Level,
  ResolvedRequirement,
  ScenarioResult,
  Status,
} from '../model/results.ts';

/** How the result of a scenario cut off by a target that stopped answering begins. */
export const STOPPED_ANSWERING = 'the target stopped answering';

/**
 * The strength of the evidence a status stands for: a failure proven (failed, then warning) is the strongest, and
 * an error (the scenario could not finish) or a skip that came after it never replaces it.
 */
const RANK: Record<Status, number> = { passed: 0, skipped: 0, error: 1, warning: 2, failed: 3 };

type Classified = { status: Status; message: string; skipReason?: string; errorCode?: ErrorCode };

/** What a thrown error makes of the scenario, sorted on the error's stable code (harness/model/failures.ts). */
function classify(error: unknown, timeoutMs: number): Classified {
  const message = error instanceof Error ? error.message : String(error);
  // The run stopped (harness/http/traffic.ts): its own words, whatever the scenario was doing.
  if (error instanceof RunStoppedError) return { status: 'error', message, errorCode: error.code };
  const code = errorCode(error);
  switch (code) {
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
    case 'ERR_TARGET_SERVER_ERROR':
    case 'ERR_TARGET_OFF_ORIGIN':
    case 'ERR_TARGET_LIMIT':
      return { status: 'error', message, errorCode: code };
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

interface Verdict {
  status: Status;
  message?: string;
  failureKind?: FailureKind;
  skipReason?: string;
  errorCode?: ErrorCode;
  /** An error or skip that ended the scenario after a failure was established: what it was (for the evidence). */
  cutShort?: string;
}

/**
 * A scenario's status from what it threw and its findings: the strongest evidence wins (RANK: a failure proven
 * outranks an error or a skip that came after it, which is kept as `cutShort`); among equals, a security failure
 * outranks an interop one. Only failed and warning keep a failure kind.
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
  const ended = v.status === 'error' || v.status === 'skipped' ? `${v.status}: ${v.message}` : undefined;
  for (const f of findings) {
    const worse =
      RANK[f.status] > RANK[v.status] ||
      (RANK[f.status] === RANK[v.status] &&
        v.status !== 'error' &&
        v.failureKind === 'refused-wrongly' &&
        f.failureKind === 'accepted');
    if (worse) v = { status: f.status, message: f.message, ...(f.failureKind ? { failureKind: f.failureKind } : {}) };
  }
  if (ended && v.status !== 'error' && v.status !== 'skipped') v.cutShort = ended;
  if (v.status !== 'failed' && v.status !== 'warning') delete v.failureKind;
  if (v.status !== 'error') delete v.errorCode;
  if (v.status !== 'skipped') delete v.skipReason;
  return v;
}

/**
 * A failure's status: the level of the requirement it names when that requirement applies; else
 * the scenario's level (a requirement that does not apply, another profile or a client rule,
 * cannot set the status).
 */
export function statusByRequirement(declared: (ref: RequirementRef) => ResolvedRequirement, level: Level) {
  return (failure: CheckFailure): Finding['status'] => {
    const named = failure.requirement ? declared(failure.requirement) : undefined;
    return levelStatus(named?.applies ? named.level : level);
  };
}

function levelStatus(level: Level): Finding['status'] {
  return level === 'MUST' ? 'failed' : 'warning';
}

export function markExpected(r: ScenarioResult, expected: ReadonlySet<string>): ScenarioResult {
  if (!expected.has(r.id)) return r;
  if (r.status === 'failed' || r.status === 'warning') return { ...r, expected: true };
  if (r.status === 'passed') return { ...r, unexpectedPass: true };
  return r;
}
