/**
 * Acting on pages in Chromium (the browser driver, and the auto driver once a page needs scripts): one BrowserWalk
 * (browser-walk.ts: its tab, every request seen before it leaves, the redirect to the redirect_uri caught), each page
 * read from the live DOM into the page model (browser-page.ts) — a page that shows nothing to act on and runs scripts
 * is given time to render — and the control the walk chose typed into or clicked as a user would. A screenshot after
 * every step.
 */
import type { Locator } from 'playwright-core';
import { setTimeout as sleep } from 'node:timers/promises';
import { OffOriginError } from '../http/client.ts';
import {
  type Action,
  type ActuatorEnd,
  type Actuator,
  type EndOfPage,
  PageChanged,
  type Reading,
  SHOWN_WAIT_MS,
  type UnsentForm,
} from './actuator.ts';
import { emptyModel, locate, readLivePage } from './browser-page.ts';
import type { BrowserWalk } from './browser-walk.ts';
import type { PageKind, PageVisit, RedirectRecord, RequestRecord } from './driver.ts';
import { type FetchedPage, formToRedirect } from './http-actuator.ts';
import { classify } from './page.ts';
import type { WalkPosition } from './walk-errors.ts';
import { describeControl, shown } from './walk-record.ts';

/** How long a page that shows nothing to act on is given to render it (scripts, late forms). */
export const RENDER_WAIT_MS = 5_000;

/** The screenshots' labels of each fill: after typing, after submitting. */
const SHOTS = {
  login: ['login form filled in', 'after signing in', 'the login form'],
  identifier: ['username filled in', 'after the username', 'the username'],
  'user-code': ['user code typed in', 'after the user code', 'the user code'],
} as const;

export interface BrowserActuatorOptions {
  walk: BrowserWalk;
  /** Per navigation and per action. */
  timeoutMs: number;
  position: WalkPosition;
  /** The label of the first page's screenshot. */
  firstShot: string;
  usernameField?: string;
  passwordField?: string;
}

export class BrowserActuator implements Actuator {
  readonly name = 'browser';
  readonly loginHint = 'wrong user or password?';
  #unsent: UnsentForm | undefined;

  get unsentForm(): UnsentForm | undefined {
    return this.o.walk.end ? undefined : this.#unsent;
  }

  constructor(private readonly o: BrowserActuatorOptions) {}

  get walk(): BrowserWalk {
    return this.o.walk;
  }

  get position(): WalkPosition {
    return this.o.position;
  }

  get renderWait(): string {
    return `waited ${Math.min(RENDER_WAIT_MS, this.o.timeoutMs)} ms for one to render`;
  }

  get requests(): RequestRecord[] {
    return this.o.walk.requests;
  }

  get end(): ActuatorEnd | undefined {
    const end = this.o.walk.end;
    if (!end || end.kind === 'redirect') return end;
    if (end.kind === 'refused')
      return {
        kind: 'refused',
        error: new OffOriginError(
          `the browser was sent to ${end.url.replace(/[?#].*$/, '')} and did not go: ${end.reason}`,
        ),
      };
    const origin = new URL(this.o.walk.stayWithin!).origin;
    return { kind: 'left', url: end.url, reason: `a navigation to ${end.url}, outside ${origin}, blocked` };
  }

  async open(url: string, method?: 'GET' | 'POST'): Promise<void> {
    await this.o.walk.open(url, method);
    await this.o.walk.screenshot(this.o.firstShot);
  }

  /** Shows a page fetched over HTTP (the walk goes on here from it), as the first page. */
  async show(page: FetchedPage): Promise<void> {
    await this.o.walk.showFetched(page);
    await this.o.walk.screenshot(this.o.firstShot);
  }

  /** The page as it is now (Chromium's own error page, for an error response without a body, reads as empty). */
  async #readOnce(wantsUserCode: boolean): Promise<Reading> {
    const { walk, position } = this.o;
    position.at('reading the page');
    const { model, snapshot } = walk.showsBrowserError
      ? { model: emptyModel(walk.documentUrl, walk.status), snapshot: '' }
      : await readLivePage(walk.page, walk.status);
    position.onPage(model.url, model.headline);
    const fields = {
      ...(this.o.usernameField ? { usernameField: this.o.usernameField } : {}),
      ...(this.o.passwordField ? { passwordField: this.o.passwordField } : {}),
    };
    return { model, snapshot, cls: classify(model, { wantsUserCode, ...fields }) };
  }

  /**
   * Reads the page until it shows something to act on: a page that is `other` (nothing a walk knows yet) may still be
   * rendering, or about to navigate by script or meta refresh.
   */
  async read(wantsUserCode: boolean, settle = true): Promise<Reading> {
    const { walk } = this.o;
    if (!settle) return this.#readOnce(wantsUserCode);
    const started = performance.now();
    const deadline = started + Math.min(RENDER_WAIT_MS, this.o.timeoutMs);
    for (;;) {
      const reading = await this.#readOnce(wantsUserCode);
      // A form_post page (a form to the redirect URI) is given the time a page gets to render to submit it by itself.
      const formPost = walk.end ? -1 : formToRedirect(reading.model, walk.stopAt);
      if (formPost >= 0) {
        if (performance.now() < deadline) {
          await sleep(100);
          continue;
        }
        const form = reading.model.forms[formPost]!;
        const fields = reading.model.controls.filter((c) => c.form === formPost && c.name).map((c) => c.name!);
        this.#unsent = {
          url: new URL(form.action || reading.model.url, reading.model.url).href,
          method: form.method,
          fields: [...new Set(fields)],
          waitedMs: Math.round(performance.now() - started),
        };
        return reading;
      }
      // Only a page that runs scripts may still render something; a page of plain HTML is what it is.
      if (reading.cls.kind !== 'other' || reading.model.scripts === 0 || walk.end || walk.showsBrowserError)
        return reading;
      if (await walk.quiet(250)) continue;
      if (performance.now() >= deadline) return reading;
      await sleep(250);
    }
  }

  /** The browser presses what the page offers as a user does: it refuses nothing. */
  refuse(): undefined {
    return undefined;
  }

  async perform(action: Action, reading: Reading): Promise<void> {
    const { walk, position, timeoutMs: timeout } = this.o;
    const located = (c: Parameters<typeof locate>[2]) => locate(walk.page, reading.snapshot, c);
    const element = (c: Parameters<typeof locate>[2]) => whileShown(located(c), describeControl(c), walk.page.url());
    // Every control the action needs must still be shown: a page that re-rendered since it was read is read again.
    const needed =
      action.kind === 'fill'
        ? [...action.fills.map((f) => f.control), ...(action.submit ? [action.submit] : [])]
        : [...(action.what === 'consent' ? action.check : []), action.control];
    for (const control of needed) {
      const shownInTime = await located(control)
        .waitFor({ state: 'visible', timeout: Math.min(SHOWN_WAIT_MS, timeout) })
        .then(
          () => true,
          () => false,
        );
      if (!shownInTime)
        throw new PageChanged(`${describeControl(control)} is no longer shown on ${walk.page.url().split('?')[0]}`);
    }
    if (action.kind === 'fill') {
      const [typed, after, what] = SHOTS[action.what];
      for (const { control, value } of action.fills) {
        position.at(`filling in ${what}`, describeControl(control));
        if (control.value !== value) await element(control).fill(value, { timeout });
      }
      await walk.screenshot(typed);
      const last = action.fills.at(-1)!.control;
      position.at(`submitting ${what}`, describeControl(action.submit ?? last));
      await walk.settle(() =>
        action.submit ? element(action.submit).click({ timeout }) : element(last).press('Enter', { timeout }),
      );
      await walk.screenshot(after);
      return;
    }
    if (action.what === 'consent') {
      const verb = action.decision === 'deny' ? 'denying' : 'approving';
      for (const choice of action.check) {
        position.at('ticking what the consent page asks to be ticked', describeControl(choice));
        await element(choice).check({ timeout });
      }
      position.at(`${verb} on the consent page`, describeControl(action.control));
      await walk.settle(() => element(action.control).click({ timeout }));
      await walk.screenshot(`after ${verb} "${shown(action.control)}"`);
      return;
    }
    position.at('going on from an interstitial page', describeControl(action.control));
    await walk.settle(() => element(action.control).click({ timeout }));
    await walk.screenshot(`after "${shown(action.control)}"`);
  }

  visit(kind: PageKind): Promise<PageVisit> {
    return this.o.walk.visit(kind);
  }

  endPage(reason: string): Promise<EndOfPage> {
    return this.o.walk.endPage(reason);
  }

  redirects(): Promise<RedirectRecord[]> {
    return this.o.walk.redirects();
  }
}

/** How long one try of an action on a control lasts before the harness looks whether the control is still shown. */
const ACTION_SLICE_MS = 2_000;

/**
 * The control's actions (click, fill, press, check) in slices of ACTION_SLICE_MS up to their timeout: after a slice
 * that timed out, a control that is no longer shown means the page changed under the action (PageChanged: nothing
 * was done, Playwright drops an action that timed out), one still shown is tried again until the timeout is spent.
 */
function whileShown(locator: Locator, what: string, url: string) {
  const sliced =
    (act: (timeout: number) => Promise<void>) =>
    async (options: { timeout: number }): Promise<void> => {
      const deadline = performance.now() + options.timeout;
      for (;;) {
        const left = deadline - performance.now();
        try {
          return await act(Math.max(1, Math.round(Math.min(ACTION_SLICE_MS, left))));
        } catch (error) {
          if (!(error instanceof Error) || error.name !== 'TimeoutError') throw error;
          if (!(await locator.isVisible().catch(() => false)))
            throw new PageChanged(`${what} is no longer shown on ${url.split('?')[0]}`);
          if (performance.now() >= deadline) {
            // The message names the whole time the action was given, not its last slice.
            error.message = error.message.replace(/Timeout [\d.]+ms exceeded/, `Timeout ${options.timeout}ms exceeded`);
            throw error;
          }
        }
      }
    };
  return {
    click: sliced((timeout) => locator.click({ timeout })),
    check: sliced((timeout) => locator.check({ timeout })),
    fill: (value: string, options: { timeout: number }) =>
      sliced((timeout) => locator.fill(value, { timeout }))(options),
    press: (key: string, options: { timeout: number }) => sliced((timeout) => locator.press(key, { timeout }))(options),
  };
}
