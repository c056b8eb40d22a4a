/**
 * The browser login driver (DESIGN §4): the same walks as the form driver, in Chromium through
 * Playwright, for any IdP including script-heavy login pages. With `steps` (fill, click, check,
 * waitFor a selector; optional steps; steps for one decision only) it runs them from the first
 * page; without, it fills the form that has a password input and approves (or denies) by the
 * button that says so. Either way it then answers what is left (a consent page) by its buttons,
 * and ends at the redirect to the redirect_uri — caught, never loaded — or at the page where it
 * could go no further. A screenshot is taken after every step.
 */
import type { BrowserContext, Cookie, Locator } from 'playwright-core';
import type { BrowserStep } from '../config.ts';
import { HarnessError } from '../failures.ts';
import {
  type AuthorizeOptions, type AuthorizeOutcome, type DeviceActivation, type DeviceActivationOutcome, type LoginDriver, type LoginSession,
} from './driver.ts';
import { type LoginForm, decisionControl, hasControls, loginForm, readControl, userCodeInput } from './browser-page.ts';
import { gives } from './words.ts';
import type { OriginPolicy } from '../origin.ts';
import { BrowserWalk, type WalkRecorder, firstLine } from './browser-walk.ts';

const MAX_PAGES = 15;

/** The cookies of shared login sessions (AuthorizeOptions.session), carried from one walk's browser context to the next. */
const SESSION_COOKIES = new WeakMap<LoginSession, Cookie[]>();
/** How long an optional step waits for its element by default. */
export const OPTIONAL_STEP_MS = 2_000;

export interface BrowserLoginOptions {
  /** A fresh browser context for each walk (the caller owns and may close it early, e.g. on a timeout). */
  newContext(): Promise<BrowserContext>;
  username: string;
  password: string;
  steps?: readonly BrowserStep[];
  recorder: WalkRecorder;
  /** Per navigation and per required step (default 10000). */
  timeoutMs?: number;
  signal?: AbortSignal;
  log?: (message: string) => void;
  /** Where the browser may go (DESIGN §9). */
  origins?: OriginPolicy;
}

const LOGIN_CAME_BACK = 'the login form came back after the credentials were submitted (wrong user or password?)';
const STEPS_LEFT_LOGIN = 'the login form is still shown after the configured steps (do the steps fill and submit it?)';

function describeStep(step: BrowserStep): string {
  if ('fill' in step) return `fill ${step.fill}`;
  if ('click' in step) return `click ${step.click}`;
  if ('check' in step) return `check ${step.check}`;
  return `wait for ${step.waitFor}`;
}

function selectorOf(step: BrowserStep): string {
  return 'fill' in step ? step.fill : 'click' in step ? step.click : 'check' in step ? step.check : step.waitFor;
}

/** Whether a control approves or denies (by what it says), on a page that is no longer asking for a password. */
async function answersRequest(walk: BrowserWalk, target: Locator): Promise<boolean> {
  if (await loginForm(walk.page)) return false;
  const control = await readControl(target);
  return gives('approve', control.reads, control.label) || gives('deny', control.reads, control.label);
}

export class BrowserLoginDriver implements LoginDriver {
  readonly name = 'browser';
  readonly #timeoutMs: number;

  constructor(private readonly o: BrowserLoginOptions) {
    this.#timeoutMs = o.timeoutMs ?? 10_000;
  }

  async #walk(stopAt: readonly string[], stayWithin?: string): Promise<BrowserWalk> {
    return BrowserWalk.open(await this.o.newContext(), {
      stopAt, recorder: this.o.recorder, timeoutMs: this.#timeoutMs,
      ...(stayWithin ? { stayWithin } : {}),
      ...(this.o.signal ? { signal: this.o.signal } : {}),
      ...(this.o.origins ? { origins: this.o.origins } : {}),
    });
  }

  #fillIn(value: string): string {
    return value.replace(/\$\{user\.(username|password)\}/g, (_, field: string) => (field === 'username' ? this.o.username : this.o.password));
  }

  /** The configured steps in order; a required step that cannot be done ends the run with the reason. */
  async #runSteps(walk: BrowserWalk, decision: 'approve' | 'deny'): Promise<{ failed?: string; decided: boolean }> {
    let decided = false;
    // An error page is no login page: no step waits for its element there.
    if (walk.status >= 400) return { failed: `the page answered HTTP ${walk.status} before the steps, so they were not run`, decided };
    await walk.passed('login');
    for (const [i, step] of (this.o.steps ?? []).entries()) {
      if (walk.end) break;
      if (step.decision && step.decision !== decision) continue;
      const what = `step ${i + 1} (${describeStep(step)})`;
      const timeout = step.timeoutMs ?? (step.optional ? OPTIONAL_STEP_MS : this.#timeoutMs);
      const target = walk.page.locator(selectorOf(step)).first();
      const visible = await Promise.race([target.waitFor({ state: 'visible', timeout }).then(() => true, () => false), walk.ended.then(() => false)]);
      if (walk.end) break;
      if (!visible) {
        if (step.optional) {
          this.o.log?.(`browser: optional ${what} skipped: nothing visible within ${timeout} ms`);
          continue;
        }
        return { failed: `${what} found nothing visible within ${timeout} ms on "${await walk.page.title().catch(() => '')}"`, decided };
      }
      try {
        if ('fill' in step) await target.fill(this.#fillIn(step.value), { timeout });
        else if ('click' in step) {
          // A click that answers the request (marked with a decision, or saying so) passes a consent page.
          if (step.decision || await answersRequest(walk, target)) await walk.passed('consent');
          await walk.settle(() => target.click({ timeout }));
        }
        else if ('check' in step) await target.check({ timeout });
      } catch (error) {
        if (!step.optional) return { failed: `${what} failed: ${firstLine(error)}`, decided };
      }
      decided ||= step.decision !== undefined;
      await walk.screenshot(`step ${i + 1}: ${describeStep(step)}`);
    }
    return { decided };
  }

  /** Fill in the user's credentials and submit, once per walk. */
  async #logIn(walk: BrowserWalk, form: LoginForm): Promise<void> {
    walk.logins++;
    await walk.passed('login');
    if (form.username) await form.username.fill(this.o.username, { timeout: this.#timeoutMs });
    await form.password.fill(this.o.password, { timeout: this.#timeoutMs });
    await walk.screenshot('login form filled in');
    await walk.settle(() => (form.submit ? form.submit.click({ timeout: this.#timeoutMs }) : form.password.press('Enter')));
    await walk.screenshot('after signing in');
  }

  async authorize(authorizationUrl: string, stopAt: string[], options: AuthorizeOptions = {}): Promise<AuthorizeOutcome> {
    if (options.method === 'POST') {
      throw new HarnessError('the browser login driver cannot send the authorization request as a form POST yet; use the form driver for this scenario');
    }
    const decision = options.consent ?? 'approve';
    const walk = await this.#walk(stopAt, options.stayWithin);
    const outcome = async (reason: string): Promise<AuthorizeOutcome> => {
      walk.throwIfRefused();
      const { pages, visits, requests } = walk;
      const end = walk.end;
      if (end?.kind === 'redirect') return { kind: 'redirect', url: end.url, params: end.params, pages, visits, requests };
      if (end?.kind === 'left') {
        const origin = new URL(options.stayWithin!).origin;
        return { kind: 'page', ...await walk.endPage(`a navigation to ${end.url}, outside ${origin}, blocked`), location: end.url, pages, visits, requests };
      }
      return { kind: 'page', ...await walk.endPage(reason), pages, visits, requests };
    };
    try {
      const cookies = options.session && SESSION_COOKIES.get(options.session);
      if (cookies) await walk.context.addCookies(cookies);
      await walk.open(authorizationUrl);
      await walk.screenshot('authorization request');
      if (options.interact === false && !walk.end) return await outcome('a page the user would have to act on; this request asked for no interaction');
      if (this.o.steps?.length && !walk.end) {
        const { failed } = await this.#runSteps(walk, decision);
        if (failed) return await outcome(failed);
      }
      for (let n = 0; n < MAX_PAGES && !walk.end; n++) {
        const form = await loginForm(walk.page);
        if (form) {
          if (this.o.steps?.length) return await outcome(STEPS_LEFT_LOGIN);
          if (walk.logins > 0) return await outcome(LOGIN_CAME_BACK);
          await this.#logIn(walk, form);
          continue;
        }
        const button = await decisionControl(walk.page, decision);
        if (button) {
          await walk.passed('consent');
          await walk.settle(() => button.locator.click({ timeout: this.#timeoutMs }));
          await walk.screenshot(`after ${decision === 'approve' ? 'approving' : 'denying'} "${button.shown || 'button'}"`);
          continue;
        }
        if (await walk.quiet()) continue;
        return await outcome(`a page with no login form and no ${decision} button`);
      }
      return await outcome(walk.end ? '' : `no redirect to the redirect_uri within ${MAX_PAGES} pages`);
    } finally {
      if (options.session) SESSION_COOKIES.set(options.session, await walk.context.cookies().catch(() => []));
      await walk.close();
    }
  }

  /**
   * Opens verification_uri, types the user code into the input that asks for it, logs in (by the
   * steps when configured), and gives the decision wherever it is asked. Ends at the first page
   * that offers nothing more to do.
   */
  async activateDevice(activation: DeviceActivation): Promise<DeviceActivationOutcome> {
    const walk = await this.#walk([]);
    let codeSent = false;
    let decided = false;
    let stepsRun = false;
    const end = async (reason: string, done = decided): Promise<DeviceActivationOutcome> => {
      walk.throwIfRefused();
      return { decided: done, ...await walk.endPage(reason), pages: walk.pages, visits: walk.visits, requests: walk.requests };
    };
    try {
      await walk.open(activation.verificationUri);
      await walk.screenshot('verification URI');
      for (let n = 0; n < MAX_PAGES; n++) {
        const code = await userCodeInput(walk.page);
        if (code) {
          if (codeSent) {
            return await end(decided
              ? 'the user-code form came back after the decision: the activation is over'
              : 'the user-code form came back after the code was submitted: the code was not accepted?');
          }
          codeSent = true;
          await walk.passed('user-code');
          await code.input.fill(activation.userCode, { timeout: this.#timeoutMs });
          await walk.screenshot('user code typed in');
          await walk.settle(() => (code.submit ? code.submit.click({ timeout: this.#timeoutMs }) : code.input.press('Enter')));
          await walk.screenshot('after the user code');
          continue;
        }
        const form = await loginForm(walk.page);
        const button = codeSent ? await decisionControl(walk.page, activation.decision) : undefined;
        // The steps log in: on the first login form, before or after the code, or on the first page after the code that asks for no decision.
        if (this.o.steps?.length && !stepsRun && (form || (codeSent && !button))) {
          stepsRun = true;
          const run = await this.#runSteps(walk, activation.decision);
          if (run.failed) return await end(run.failed);
          decided ||= run.decided;
          continue;
        }
        if (form) {
          if (this.o.steps?.length) return await end(STEPS_LEFT_LOGIN);
          if (walk.logins > 0) return await end(LOGIN_CAME_BACK);
          await this.#logIn(walk, form);
          continue;
        }
        // A decision counts only once the code is in: before it, a "Cancel" would cancel nothing.
        if (button) {
          await walk.passed('consent');
          await walk.settle(() => button.locator.click({ timeout: this.#timeoutMs }));
          decided = true;
          await walk.screenshot(`after ${activation.decision === 'approve' ? 'approving' : 'denying'} "${button.shown || 'button'}"`);
          continue;
        }
        if (await walk.quiet()) continue;
        if (!codeSent) return await end('no text input for the user code at the verification URI');
        if (await hasControls(walk.page)) {
          const why = activation.decision === 'deny' && (await decisionControl(walk.page, 'approve'))
            ? 'a page that asks for approval but offers no deny, cancel or abort button'
            : 'a page with controls the driver does not recognize';
          return await end(why);
        }
        // The end of the activation. Approving by signing in counts: the IdP asked nothing more.
        return await end('the activation ended on a page without a form', decided || (activation.decision === 'approve' && (walk.logins > 0 || stepsRun)));
      }
      return await end(`the activation did not end within ${MAX_PAGES} pages`);
    } finally {
      await walk.close();
    }
  }
}
