/**
 * The configured login steps (login.steps: fill, click, check or waitFor a Playwright selector; optional steps; steps
 * for one decision only), run in order in the browser from the page where a sign-in is asked. A required step that
 * cannot be done is a set-up problem (a PreconditionError: the scenario is an `error` naming the step); on an error
 * page no step runs.
 */
import type { BrowserStep } from '../config/load.ts';
import { PreconditionError } from '../model/failures.ts';
import type { BrowserActuator } from './browser-actuator.ts';
import { firstLine } from './browser-requests.ts';
import type { PageKind } from './driver.ts';
import type { StepsResult } from './walk-settings.ts';

/** How long an optional step waits for its element by default. */
export const OPTIONAL_STEP_MS = 2_000;

export function describeStep(step: BrowserStep): string {
  if ('fill' in step) return `fill ${step.fill}`;
  if ('click' in step) return `click ${step.click}`;
  if ('check' in step) return `check ${step.check}`;
  return `wait for ${step.waitFor}`;
}

export function selectorOf(step: BrowserStep): string {
  return 'fill' in step ? step.fill : 'click' in step ? step.click : 'check' in step ? step.check : step.waitFor;
}

export interface StepsOptions {
  steps: readonly BrowserStep[];
  username: string;
  password: string;
  /** Per required step (default for `timeoutMs`). */
  timeoutMs: number;
  log?: (message: string) => void;
}

/** `${user.username}` and `${user.password}` in a step's value, filled in. */
function fillIn(value: string, o: StepsOptions): string {
  return value.replace(/\$\{user\.(username|password)\}/g, (_, field: string) =>
    field === 'username' ? o.username : o.password,
  );
}

/**
 * Runs the steps on the actuator's page; `passed` records the pages passed (the login, and a consent answered by a
 * step).
 */
export async function runSteps(
  a: BrowserActuator,
  o: StepsOptions,
  decision: 'approve' | 'deny',
  passed: (kind: PageKind) => Promise<void>,
): Promise<StepsResult> {
  const { walk } = a;
  let decided = false;
  // An error page is no login page: no step waits for its element there.
  if (walk.status >= 400)
    return { failed: `the page answered HTTP ${walk.status} before the steps, so they were not run`, decided };
  await passed('login');
  for (const [i, step] of o.steps.entries()) {
    if (walk.end) break;
    if (step.decision && step.decision !== decision) continue;
    const what = `step ${i + 1} (${describeStep(step)})`;
    a.position.at(`the configured ${what}`, selectorOf(step));
    const timeout = step.timeoutMs ?? (step.optional ? OPTIONAL_STEP_MS : o.timeoutMs);
    const target = walk.page.locator(selectorOf(step)).first();
    const visible = await Promise.race([
      target.waitFor({ state: 'visible', timeout }).then(
        () => true,
        () => false,
      ),
      walk.ended.then(() => false),
    ]);
    if (walk.end) break;
    if (!visible) {
      if (step.optional) {
        o.log?.(`browser: optional ${what} skipped: nothing visible within ${timeout} ms`);
        continue;
      }
      throw new PreconditionError(
        `the configured login steps could not be done: ${what} found nothing visible within ${timeout} ms on ` +
          `"${await walk.page.title().catch(() => '')}"`,
      );
    }
    try {
      if ('fill' in step) await target.fill(fillIn(step.value, o), { timeout });
      else if ('click' in step) {
        // A click that answers a request for access (marked with a decision, or on a consent page) passes a consent
        // page.
        if (step.decision || (await a.read(false, false)).cls.kind === 'consent') await passed('consent');
        await walk.settle(() => target.click({ timeout }));
      } else if ('check' in step) await target.check({ timeout });
    } catch (error) {
      if (!step.optional)
        throw new PreconditionError(
          `the configured login steps could not be done: ${what} failed: ${firstLine(error)}`,
        );
    }
    decided ||= step.decision !== undefined;
    await walk.screenshot(`step ${i + 1}: ${describeStep(step)}`);
  }
  return { decided };
}
