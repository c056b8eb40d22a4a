/**
 * The run's traffic to the target, counted across scenarios: when the target stops answering mid-run (its listener
 * closed, a process out of file descriptors), the report leads with one finding — when, after how many requests, what
 * was last sent — instead of a row of unrelated errors. An outage is a transport failure after which no request of
 * the run got an answer again; a failure followed by answers (one endpoint that hangs) is no outage.
 */

import { RunStoppedError } from '../model/failures.ts';
import type { Outage } from '../model/results.ts';

export type { Outage } from '../model/results.ts';

/** Requests in a row that got no answer (a connection refused, reset, or no response in time) after which the
 * target is declared unreachable. */
export const MAX_UNANSWERED_IN_A_ROW = 5;

/**
 * Whether the run must stop (docs/security.md, "A run always ends with a report"): the target declared unreachable
 * (MAX_UNANSWERED_IN_A_ROW requests in a row unanswered), or the run's time limit (--max-run-ms) reached. Its signal
 * aborts the scenarios in flight; a scenario not started yet is an `error` with the reason, at once.
 */
export class RunStop {
  readonly #controller = new AbortController();
  #timer: NodeJS.Timeout | undefined;
  #error: RunStoppedError | undefined;

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Why the run stopped, as the scenarios it left unjudged say; undefined while it goes on. */
  get error(): RunStoppedError | undefined {
    return this.#error;
  }

  /** The run's time limit, from now; none when undefined. */
  limit(ms: number | undefined): void {
    if (ms === undefined || this.#timer) return;
    this.#timer = setTimeout(
      () => this.stop(`the run's time limit was reached (${ms} ms, --max-run-ms)`, 'ERR_RUN_STOPPED'),
      ms,
    );
    this.#timer.unref();
  }

  stop(message: string, code: 'ERR_TARGET_UNREACHABLE' | 'ERR_RUN_STOPPED'): void {
    if (this.#error) return;
    this.#error = new RunStoppedError(message, code);
    this.dispose();
    this.#controller.abort(this.#error);
  }

  dispose(): void {
    clearTimeout(this.#timer);
  }
}

/** A request as an outage names it: method, URL without its query or fragment, and label. */
export function requestName(method: string, url: string, label?: string): string {
  return `${method} ${url.replace(/[?#].*$/, '')}${label ? ` (${label})` : ''}`;
}

export class TargetTraffic {
  #sent = 0;
  #answered = 0;
  /** The first failure since the last answer: an outage unless an answer comes after it. */
  #pending: Outage | undefined;
  /** Requests unanswered since the last answer. */
  #inARow = 0;

  constructor(readonly stop: RunStop = new RunStop()) {}

  /** The traffic of a run whose discovery the target answered (the run starts only then). */
  static afterDiscovery(stop?: RunStop): TargetTraffic {
    const traffic = new TargetTraffic(stop);
    traffic.#answered = 1;
    return traffic;
  }

  /** A request leaves; returns how it is named in an outage. */
  sent(method: string, url: string, label?: string): string {
    this.#sent++;
    return requestName(method, url, label);
  }

  /** The target answered (any status). */
  answered(): void {
    this.#answered++;
    this.#pending = undefined;
    this.#inARow = 0;
  }

  /** The request named `what` got no answer. */
  unanswered(what: string, cause: string): void {
    if (++this.#inARow >= MAX_UNANSWERED_IN_A_ROW)
      this.stop.stop(
        `target unreachable: ${this.#inARow} requests in a row got no answer (the last: ${what}, ${cause})`,
        'ERR_TARGET_UNREACHABLE',
      );
    if (this.#pending || this.#answered === 0) return; // the first of a row; or the target never answered at all
    this.#pending = { at: new Date().toISOString(), afterRequests: this.#sent - 1, lastSent: what, cause };
  }

  /** The outage the run ended in, if it did. */
  outage(): Outage | undefined {
    return this.#pending;
  }
}
