/**
 * The ways a scenario can end other than passing. Only a CheckFailure counts against the target;
 * everything else is an `error` result (the harness, the config or the connection failed).
 */

import type { RequirementRef } from './requirements.ts';
import { CODES, type Code, type ErrorCode, type FailureKind, type SignalCode } from './results.ts';

export type { Code, ErrorCode, SignalCode } from './results.ts';

export interface CheckFailureOptions {
  /** Which of the scenario's declared requirements this check enforces (ctx.req.<name>); its
   *  level then decides failed (MUST) or warning (SHOULD/MAY). Defaults to the scenario's level. */
  requirement?: RequirementRef;
  /**
   * How the target failed (docs/security.md): `accepted` — the attack or the bad request succeeded (a
   * security failure); `refused-wrongly` — refused, but with the wrong status, code or body (an
   * interoperability failure). Default `accepted`: a check that cannot tell counts as security.
   */
  kind?: FailureKind;
  cause?: unknown;
}

/** The target violated a requirement. The message is one sentence: what it did, what is required. */
export class CheckFailure extends Error {
  override readonly name = 'CheckFailure';
  readonly code: SignalCode = 'ERR_CHECK_FAILED';
  readonly requirement?: RequirementRef;
  readonly kind: FailureKind;
  constructor(message: string, options: CheckFailureOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    if (options.requirement) this.requirement = options.requirement;
    this.kind = options.kind ?? 'accepted';
  }
}

/** The target answered with HTTP 5xx where a verdict was needed: its own finding, never a counterexample. */
export class TargetServerError extends Error {
  override readonly name = 'TargetServerError';
  readonly code: ErrorCode = 'ERR_TARGET_SERVER_ERROR';
  readonly status: number;
  constructor(message: string, status: number) {
    super(message);
    this.status = status;
  }
}

/** The harness could not do its part (bad input to a helper, a missing endpoint, …). */
export class HarnessError extends Error {
  override readonly name: string = 'HarnessError';
  readonly code: ErrorCode = 'ERR_HARNESS';
}

/** A step a scenario depends on (logging in, getting a token) did not work, so it cannot judge. */
export class PreconditionError extends HarnessError {
  override readonly name: string = 'PreconditionError';
  override readonly code: ErrorCode = 'ERR_PRECONDITION';
}

/**
 * The target refused what the scenario tried, but for a reason the scenario is not about (a sound
 * control request was refused too): an `error` reading "could not judge: …", never a pass or a failure.
 */
export class JudgementError extends PreconditionError {
  override readonly name = 'JudgementError';
  override readonly code: ErrorCode = 'ERR_COULD_NOT_JUDGE';
}

/** The target config is invalid: each issue names the field and the fix. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly code: SignalCode = 'ERR_CONFIG';
  readonly issues: string[];
  constructor(issues: string[], heading = 'invalid target config') {
    super(`${heading}:\n${issues.map((i) => `  - ${i}`).join('\n')}`);
    this.issues = issues;
  }
}

/** A request could not reach the target at all (refused, DNS, TLS, timeout). */
export class TargetUnreachableError extends Error {
  override readonly name = 'TargetUnreachableError';
  readonly code: ErrorCode = 'ERR_TARGET_UNREACHABLE';
  readonly url: string;
  constructor(url: string, cause: string) {
    super(`cannot reach ${url}: ${cause}`);
    this.url = url;
  }
}

/**
 * The run stopped before this scenario could be judged (docs/security.md, "A run always ends with a report"): the
 * target declared unreachable (`ERR_TARGET_UNREACHABLE`), or the run's time limit reached (`ERR_RUN_STOPPED`).
 */
export class RunStoppedError extends Error {
  override readonly name = 'RunStoppedError';
  constructor(
    message: string,
    readonly code: ErrorCode,
  ) {
    super(message);
  }
}

/** A scenario exceeded its time limit. */
export class ScenarioTimeoutError extends HarnessError {
  override readonly name = 'ScenarioTimeoutError';
  override readonly code: ErrorCode = 'ERR_SCENARIO_TIMEOUT';
}

/** Thrown by ctx.skip(): the scenario found at run time that it does not apply. */
export class SkipSignal extends Error {
  override readonly name = 'SkipSignal';
  readonly code: SignalCode = 'ERR_SKIP';
}

/**
 * The stable code of an error the harness knows (every class above, and their subclasses elsewhere in the harness),
 * else undefined: what the runner sorts on, and what a user or a test matches instead of a message or a class.
 */
export function errorCode(error: unknown): Code | undefined {
  if (!(error instanceof Error) || !('code' in error)) return undefined;
  return CODES.find((code) => code === error.code);
}

export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}
