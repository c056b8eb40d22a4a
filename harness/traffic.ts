/**
 * The run's traffic to the target, counted across scenarios: when the target stops answering mid-run (its listener
 * closed, a process out of file descriptors), the report leads with one finding — when, after how many requests, what
 * was last sent — instead of a row of unrelated errors. An outage is a transport failure after which no request of
 * the run got an answer again; a failure followed by answers (one endpoint that hangs) is no outage.
 */

import type { Outage } from './results.ts';

export type { Outage } from './results.ts';

/** A request as an outage names it: method, URL without its query or fragment, and label. */
export function requestName(method: string, url: string, label?: string): string {
  return `${method} ${url.replace(/[?#].*$/, '')}${label ? ` (${label})` : ''}`;
}

export class TargetTraffic {
  #sent = 0;
  #answered = 0;
  /** The first failure since the last answer: an outage unless an answer comes after it. */
  #pending: Outage | undefined;

  /** The traffic of a run whose discovery the target answered (the run starts only then). */
  static afterDiscovery(): TargetTraffic {
    const traffic = new TargetTraffic();
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
  }

  /** The request named `what` got no answer. */
  unanswered(what: string, cause: string): void {
    if (this.#pending || this.#answered === 0) return; // the first of a row; or the target never answered at all
    this.#pending = { at: new Date().toISOString(), afterRequests: this.#sent - 1, lastSent: what, cause };
  }

  /** The outage the run ended in, if it did. */
  outage(): Outage | undefined {
    return this.#pending;
  }
}
