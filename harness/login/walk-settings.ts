/**
 * What a page walk (walk.ts) is given: the user, the configured steps and how to hand over to the browser (the auto
 * driver), the run's memory of pages that needed the browser, where the walk is and its record.
 */
import type { Actuator, Reading } from './actuator.ts';
import type { PageKind } from './driver.ts';
import type { WalkPosition } from './walk-errors.ts';
import type { WalkRecord } from './walk-record.ts';

/** The configured steps an actuator runs (the browser's), and what they did. */
export interface StepsResult {
  failed?: string;
  decided: boolean;
  /** The page, once rendered, was no sign-in page: the steps were not run there. */
  notRun?: boolean;
}

/** Hands the walk over to the browser from the page `reading` is of (the auto driver): the actuator that goes on. */
export type HandOver = (from: Actuator, reading: Reading, why: string) => Promise<Actuator>;

export interface WalkSettings {
  username: string;
  password: string;
  /** Configured browser steps: run where the page asks for a sign-in (by the browser; over HTTP, handed over). */
  steps?: {
    run(
      actuator: Actuator,
      decision: 'approve' | 'deny',
      passed: (kind: PageKind) => Promise<void>,
    ): Promise<StepsResult>;
  };
  handOver?: HandOver;
  /** The run's memory of pages that needed the browser (auto.ts): such a page is handed over at once. */
  memory?: BrowserPages;
  /** Where the walk is, for an error that names the page, the element and the step (walk-errors.ts). */
  position: WalkPosition;
  record: WalkRecord;
}

/** Pages an earlier walk needed the browser on: later walks that meet them go to the browser at once. */
export interface BrowserPages {
  /** Why an earlier walk needed the browser on this page (for this decision), or undefined. */
  recall(reading: Reading, decision: 'approve' | 'deny'): string | undefined;
  remember(reading: Reading, decision: 'approve' | 'deny', why: string): void;
}
