/**
 * The browser login driver (docs/login.md): the same walks as the form driver, in Chromium through
 * Playwright, for any IdP including script-rendered pages. With `steps` (fill, click, check,
 * waitFor a selector; optional steps; steps for one decision only) it runs them from the first
 * page; without, the shared page walk (page.ts) reads each page as the form driver does — login,
 * identifier-first login, user-code entry, consent, interstitial, error — and it acts on the
 * control that walk chose. A page that shows nothing to act on yet is given time to render. The
 * walk ends at the redirect to the redirect_uri — caught, never loaded — or at the page where it
 * could go no further. A screenshot is taken after every step.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { BrowserContext, Locator } from 'playwright-core';
import type { BrowserStep } from '../config.ts';
import type {
  AuthorizeOptions,
  AuthorizeOutcome,
  DeviceActivation,
  DeviceActivationOutcome,
  LoginDriver,
} from './driver.ts';
import { emptyModel, locate, readLivePage } from './browser-page.ts';
import type { OriginPolicy } from '../origin.ts';
import { BrowserWalk, type WalkRecorder, firstLine } from './browser-walk.ts';
import { type PageClass, type PageControl, type PageModel, classify, describeError, reads, says } from './page.ts';
import { type BrowserState, type LoginSession, sessionFor, walkOn } from './session.ts';
import { PreconditionError } from '../failures.ts';
import { OffOriginError } from '../http.ts';
import { WalkPosition, walkFailure } from './walk-errors.ts';

/** Where each walk is (for an error that names the page, the element and the step: walk-errors.ts). */
const positions = new WeakMap<BrowserWalk, WalkPosition>();
function positionOf(walk: BrowserWalk): WalkPosition {
  const known = positions.get(walk);
  if (known) return known;
  const position = new WalkPosition();
  positions.set(walk, position);
  return position;
}

/** A control as an error names it: `the button "Sign in"`. */
function element(c: PageControl): string {
  return `the ${c.tag === 'a' ? 'link' : c.tag === 'input' ? `${c.type} input` : c.tag} "${shown(c)}"`;
}

/**
 * What a walk threw, as an error naming the page, the element and the step (walk-errors.ts), after a screenshot of
 * where the walk stopped. Not when the harness refused to go somewhere (a URL off the allowed origins, a file: URL):
 * the browser never went there, and a picture of wherever it is proves nothing.
 */
async function walkFailed(walk: BrowserWalk, error: unknown): Promise<Error> {
  if (!(error instanceof OffOriginError)) await walk.screenshot('where the walk stopped').catch(() => undefined);
  return walkFailure('browser', positionOf(walk), error);
}

/** The most actions (a fill-and-submit, a click) one walk takes. */
const MAX_ACTIONS = 15;
/** How long an optional step waits for its element by default. */
export const OPTIONAL_STEP_MS = 2_000;
/** How long a page that shows nothing to act on is given to render it (scripts, late forms). */
export const RENDER_WAIT_MS = 5_000;

/** Contexts for fresh walks: taken, emptied by the walk at its end (cookies and storage cleared), given back. */
export interface EmptiedContexts {
  take(): Promise<BrowserContext>;
  giveBack(context: BrowserContext): void;
}

export interface BrowserLoginOptions {
  /**
   * A fresh browser context for each walk, from a session's state when given (the caller owns and may close it early,
   * e.g. on a timeout).
   */
  newContext(state?: BrowserState): Promise<BrowserContext>;
  /** Where fresh walks (a session without state) take their contexts from instead of `newContext`, when given. */
  emptied?: EmptiedContexts;
  username: string;
  password: string;
  steps?: readonly BrowserStep[];
  recorder: WalkRecorder;
  /** Per navigation and per required step (default 10000). */
  timeoutMs?: number;
  signal?: AbortSignal;
  log?: (message: string) => void;
  /** Where the browser may go (docs/security.md). */
  origins?: OriginPolicy;
  /** Load images, fonts and media (login.loadAssets; default not). */
  loadAssets?: boolean;
  /** The run's shared IdP session (AuthorizeOptions.session "shared"). */
  sharedSession?: LoginSession;
  /**
   * The run's browser context for the shared session: its cookies carry the IdP's sign-in from walk to walk, and its
   * tabs are reused. Without it a shared walk starts a new context from the session's last state.
   */
  sharedContext?: () => Promise<BrowserContext>;
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

function shown(c: PageControl): string {
  return reads(c).label || c.name || c.tag;
}

interface Reading {
  model: PageModel;
  snapshot: string;
  cls: PageClass;
}

export class BrowserLoginDriver implements LoginDriver {
  readonly name = 'browser';
  readonly #timeoutMs: number;

  constructor(private readonly o: BrowserLoginOptions) {
    this.#timeoutMs = o.timeoutMs ?? 10_000;
  }

  async #walk(stopAt: readonly string[], session: LoginSession, stayWithin?: string): Promise<BrowserWalk> {
    const shared = this.#sharedContext(session);
    const options = {
      stopAt,
      recorder: this.o.recorder,
      timeoutMs: this.#timeoutMs,
      ...(stayWithin ? { stayWithin } : {}),
      ...(this.o.signal ? { signal: this.o.signal } : {}),
      ...(this.o.origins ? { origins: this.o.origins } : {}),
      ...(this.o.loadAssets ? { loadAssets: true } : {}),
    };
    if (shared) return BrowserWalk.borrow(await shared, options);
    const emptied = this.o.emptied;
    // A session with nothing in it yet starts from an emptied context: no cookies and no storage, as a new one.
    if (emptied && !session.hasState())
      return BrowserWalk.borrow(await emptied.take(), options, (context) => emptied.giveBack(context));
    return BrowserWalk.open(await this.o.newContext(session.browserState), options);
  }

  /** The run's lasting context, when `session` is the run's shared session and there is one. */
  #sharedContext(session: LoginSession): Promise<BrowserContext> | undefined {
    return session === this.o.sharedSession && this.o.sharedContext ? this.o.sharedContext() : undefined;
  }

  /** Keeps the walk's cookies and storage in its session (for the next walk that shares it), then closes it. */
  async #close(walk: BrowserWalk, session: LoginSession): Promise<void> {
    const state = await walk.context.storageState().catch(() => undefined);
    if (state) session.browserState = state;
    await walk.close();
  }

  #fillIn(value: string): string {
    return value.replace(/\$\{user\.(username|password)\}/g, (_, field: string) =>
      field === 'username' ? this.o.username : this.o.password,
    );
  }

  /**
   * The page as the shared walk reads it (Chromium's own error page, for an error response without a body, reads as an
   * empty page).
   */
  async #read(walk: BrowserWalk, wantsUserCode = false): Promise<Reading> {
    const position = positionOf(walk);
    position.at('reading the page');
    const { model, snapshot } = walk.showsBrowserError
      ? { model: emptyModel(walk.documentUrl, walk.status), snapshot: '' }
      : await readLivePage(walk.page, walk.status);
    position.onPage(model.url, model.headline);
    return { model, snapshot, cls: classify(model, { wantsUserCode }) };
  }

  /**
   * Reads the page until it shows something to act on: a page that is `other` (nothing a driver
   * knows yet) may still be rendering, or about to navigate by script or meta refresh.
   */
  async #settled(walk: BrowserWalk, wantsUserCode = false): Promise<Reading> {
    const deadline = performance.now() + Math.min(RENDER_WAIT_MS, this.#timeoutMs);
    for (;;) {
      const reading = await this.#read(walk, wantsUserCode);
      // Only a page that runs scripts may still render something; a page of plain HTML is what it is.
      if (reading.cls.kind !== 'other' || reading.model.scripts === 0 || walk.end || walk.showsBrowserError)
        return reading;
      if (await walk.quiet(250)) continue;
      if (performance.now() >= deadline) return reading;
      await sleep(250);
    }
  }

  /**
   * The configured steps in order. A required step that cannot be done is a set-up problem (a
   * PreconditionError: the scenario is an `error`); on an error page no step is run and the walk ends there.
   */
  async #runSteps(walk: BrowserWalk, decision: 'approve' | 'deny'): Promise<{ failed?: string; decided: boolean }> {
    let decided = false;
    // An error page is no login page: no step waits for its element there.
    if (walk.status >= 400)
      return { failed: `the page answered HTTP ${walk.status} before the steps, so they were not run`, decided };
    await walk.passed('login');
    for (const [i, step] of (this.o.steps ?? []).entries()) {
      if (walk.end) break;
      if (step.decision && step.decision !== decision) continue;
      const what = `step ${i + 1} (${describeStep(step)})`;
      positionOf(walk).at(`the configured ${what}`, selectorOf(step));
      const timeout = step.timeoutMs ?? (step.optional ? OPTIONAL_STEP_MS : this.#timeoutMs);
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
          this.o.log?.(`browser: optional ${what} skipped: nothing visible within ${timeout} ms`);
          continue;
        }
        throw new PreconditionError(
          `the configured login steps could not be done: ${what} found nothing visible within ${timeout} ms on ` +
            `"${await walk.page.title().catch(() => '')}"`,
        );
      }
      try {
        if ('fill' in step) await target.fill(this.#fillIn(step.value), { timeout });
        else if ('click' in step) {
          // A click that answers a request for access (marked with a decision, or on a consent page) passes a consent
          // page.
          if (step.decision || (await this.#read(walk)).cls.kind === 'consent') await walk.passed('consent');
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

  /** Types into an input (unless it already holds the text) and submits by its button, else by Enter. */
  async #submit(
    walk: BrowserWalk,
    reading: Reading,
    fills: [PageControl, string][],
    submit: PageControl | undefined,
    labels: [string, string],
  ): Promise<void> {
    const position = positionOf(walk);
    const what = labels[0].replace(/ (filled|typed) in$/, '');
    for (const [control, value] of fills) {
      position.at(`filling in the ${what}`, element(control));
      const input = locate(walk.page, reading.snapshot, control);
      if (control.value !== value) await input.fill(value, { timeout: this.#timeoutMs });
    }
    await walk.screenshot(labels[0]);
    const last = fills.at(-1)?.[0];
    position.at(`submitting the ${what}`, submit ? element(submit) : last && element(last));
    const enter = (): Promise<void> =>
      last ? locate(walk.page, reading.snapshot, last).press('Enter', { timeout: this.#timeoutMs }) : Promise.resolve();
    await walk.settle(() => (submit ? this.#click(locate(walk.page, reading.snapshot, submit)) : enter()));
    await walk.screenshot(labels[1]);
  }

  async #click(target: Locator): Promise<void> {
    await target.click({ timeout: this.#timeoutMs });
  }

  /**
   * One action on a login, identifier, consent or interstitial page; a string says why the walk
   * stops, undefined that there was nothing to do.
   */
  async #act(walk: BrowserWalk, reading: Reading, decision: 'approve' | 'deny'): Promise<string | 'acted' | undefined> {
    const { cls } = reading;
    if (cls.kind === 'login') {
      if (this.o.steps?.length) return STEPS_LEFT_LOGIN;
      if (walk.logins++ > 0) return LOGIN_CAME_BACK;
      await walk.passed('login');
      const fills: [PageControl, string][] = [];
      if (cls.username) fills.push([cls.username, this.o.username]);
      fills.push([cls.password, this.o.password]);
      await this.#submit(walk, reading, fills, cls.submit, ['login form filled in', 'after signing in']);
      return 'acted';
    }
    if (cls.kind === 'identifier') {
      if (this.o.steps?.length) return STEPS_LEFT_LOGIN;
      if (walk.identified++ > 0)
        return 'the identifier (username) page came back after the username was submitted (wrong user?)';
      await walk.passed('login');
      await this.#submit(walk, reading, [[cls.username, this.o.username]], cls.submit, [
        'username filled in',
        'after the username',
      ]);
      return 'acted';
    }
    if (cls.kind === 'consent') {
      const control = decision === 'approve' ? cls.approve : cls.deny;
      if (!control) return undefined;
      await walk.passed('consent');
      // An approving user ticks what the page asks to be ticked (per-scope consent); a denying one ticks nothing.
      const position = positionOf(walk);
      if (decision === 'approve')
        for (const choice of cls.choices) {
          position.at('ticking what the consent page asks to be ticked', element(choice));
          await locate(walk.page, reading.snapshot, choice).check({ timeout: this.#timeoutMs });
        }
      position.at(`${decision === 'approve' ? 'approving' : 'denying'} on the consent page`, element(control));
      await walk.settle(() => this.#click(locate(walk.page, reading.snapshot, control)));
      await walk.screenshot(`after ${decision === 'approve' ? 'approving' : 'denying'} "${shown(control)}"`);
      return 'acted';
    }
    if (cls.kind === 'continue') {
      positionOf(walk).at('going on from an interstitial page', element(cls.submit));
      await walk.settle(() => this.#click(locate(walk.page, reading.snapshot, cls.submit)));
      await walk.screenshot(`after "${shown(cls.submit)}"`);
      return 'acted';
    }
    return undefined;
  }

  /** Why a page with nothing to act on stopped the walk. */
  #stopReason(reading: Reading, decision: 'approve' | 'deny'): string {
    const { model, cls } = reading;
    const cut = model.truncated ? ` (${model.truncated})` : '';
    if (cls.kind === 'error') return `${describeError(model, cls.alert)}${cut}`;
    if (cls.kind === 'consent') {
      return decision === 'deny'
        ? `a page that asks for access but offers no deny, cancel or abort control${cut}`
        : `a page that asks for access but offers no approving control${cut}`;
    }
    return (
      `a page with no login form and no ${decision} control ` +
      `(waited ${Math.min(RENDER_WAIT_MS, this.#timeoutMs)} ms for one to render)${cut}`
    );
  }

  async authorize(
    authorizationUrl: string,
    stopAt: string[],
    options: AuthorizeOptions = {},
  ): Promise<AuthorizeOutcome> {
    const session = sessionFor(options.session, this.o.sharedSession);
    // One walk at a time on a session, the run's shared one included (its walks share one browser context): an IdP may
    // keep one pending authorization request per browser (LemonLDAP::NG does, and a second tab's request took over the
    // first one's sign-in, handing it a code for the other request), or rotate a token on sign-in that a login form
    // loaded before then carries (Django's CSRF token: HTTP 403).
    return walkOn(session, () => this.#authorize(session, authorizationUrl, stopAt, options));
  }

  async #authorize(
    session: LoginSession,
    authorizationUrl: string,
    stopAt: string[],
    options: AuthorizeOptions,
  ): Promise<AuthorizeOutcome> {
    const decision = options.consent ?? 'approve';
    const walk = await this.#walk(stopAt, session, options.stayWithin);
    const outcome = async (reason: string): Promise<AuthorizeOutcome> => {
      walk.throwIfRefused();
      const { pages, visits, requests } = walk;
      const redirects = await walk.redirects();
      const consentShown = pages.includes('consent');
      const end = walk.end;
      if (end?.kind === 'redirect')
        return { kind: 'redirect', url: end.url, params: end.params, pages, visits, requests, redirects, consentShown };
      if (end?.kind === 'left') {
        const origin = new URL(options.stayWithin!).origin;
        return {
          kind: 'page',
          ...(await walk.endPage(`a navigation to ${end.url}, outside ${origin}, blocked`)),
          location: end.url,
          pages,
          visits,
          requests,
          redirects,
          consentShown,
        };
      }
      return { kind: 'page', ...(await walk.endPage(reason)), pages, visits, requests, redirects, consentShown };
    };
    positionOf(walk).at('opening the authorization URL');
    try {
      await walk.open(authorizationUrl, options.method);
      await walk.screenshot('authorization request');
      if (options.interact === false && !walk.end)
        return await outcome('a page the user would have to act on; this request asked for no interaction');
      if (this.o.steps?.length && !walk.end) {
        const first = await this.#read(walk);
        // A remembered sign-in (a shared session) may skip the login page: steps only run where there is one.
        if (first.cls.kind === 'login' || first.cls.kind === 'identifier' || first.cls.kind === 'other') {
          const { failed } = await this.#runSteps(walk, decision);
          if (failed) return await outcome(failed);
        }
      }
      for (let n = 0; n < MAX_ACTIONS && !walk.end; n++) {
        const reading = await this.#settled(walk);
        if (walk.end) break;
        const done = await this.#act(walk, reading, decision);
        if (done === 'acted') continue;
        const page = await outcome(done ?? this.#stopReason(reading, decision));
        return reading.cls.kind === 'error' && page.kind === 'page' ? { ...page, errorPage: true } : page;
      }
      return await outcome(walk.end ? '' : `no redirect to the redirect_uri within ${MAX_ACTIONS} actions`);
    } catch (error) {
      throw await walkFailed(walk, error);
    } finally {
      await this.#close(walk, session);
    }
  }

  /**
   * Opens verification_uri_complete when given (unless declined), else verification_uri, types
   * the user code into the input that asks for it (in a form or not: a script-rendered input is
   * waited for and submitted by its visible button), logs in (by the steps when configured,
   * before or after the code), and gives the decision wherever it is asked. Ends at the first page
   * that offers nothing more to do.
   */
  async activateDevice(activation: DeviceActivation): Promise<DeviceActivationOutcome> {
    const session = sessionFor(activation.session, this.o.sharedSession);
    return walkOn(session, () => this.#activate(session, activation));
  }

  async #activate(session: LoginSession, activation: DeviceActivation): Promise<DeviceActivationOutcome> {
    const complete =
      activation.verificationUriComplete && activation.useComplete !== false
        ? activation.verificationUriComplete
        : undefined;
    const walk = await this.#walk([], session);
    let codeSent = false;
    let codeIn = complete !== undefined;
    let decided = false;
    let stepsRun = false;
    const end = async (reason: string, done = decided): Promise<DeviceActivationOutcome> => {
      walk.throwIfRefused();
      return {
        decided: done,
        ...(await walk.endPage(reason)),
        pages: walk.pages,
        visits: walk.visits,
        requests: walk.requests,
        consentShown: walk.pages.includes('consent'),
      };
    };
    positionOf(walk).at('opening the verification URI');
    try {
      await walk.open(complete ?? activation.verificationUri);
      await walk.screenshot(complete ? 'verification URI (complete)' : 'verification URI');
      for (let n = 0; n < MAX_ACTIONS; n++) {
        const reading = await this.#settled(walk, !codeSent);
        const { cls } = reading;
        if (cls.kind === 'user-code') {
          if (codeSent || decided) {
            return await end(
              decided
                ? 'the user-code form came back after the decision: the activation is over'
                : 'the user-code form came back after the code was submitted: the code was not accepted?',
            );
          }
          codeSent = true;
          codeIn = true;
          await walk.passed('user-code');
          await this.#submit(walk, reading, [[cls.input, activation.userCode]], cls.submit, [
            'user code typed in',
            'after the user code',
          ]);
          continue;
        }
        // The steps log in: on the first login page, before or after the code, or on the first page after the code that
        // asks for no decision.
        if (
          this.o.steps?.length &&
          !stepsRun &&
          (cls.kind === 'login' ||
            cls.kind === 'identifier' ||
            (codeIn && cls.kind !== 'consent' && cls.kind !== 'error'))
        ) {
          stepsRun = true;
          const run = await this.#runSteps(walk, activation.decision);
          if (run.failed) return await end(run.failed);
          decided ||= run.decided;
          continue;
        }
        // A decision counts only once the code is in: before it, a "Cancel" would cancel nothing.
        if (cls.kind === 'consent' && !codeIn)
          return await end('a page that asks for a decision before the user code was entered');
        const done = await this.#act(walk, reading, activation.decision);
        if (done === 'acted') {
          decided ||= cls.kind === 'consent';
          continue;
        }
        if (done) return await end(done);
        if (!codeIn)
          return await end(
            `no input for the user code at the verification URI ` +
              `(waited ${Math.min(RENDER_WAIT_MS, this.#timeoutMs)} ms for one to render)`,
          );
        if (cls.kind === 'error')
          return await end(`the activation ended on an error page (HTTP ${reading.model.status})`);
        if (cls.kind === 'other' && !cls.controls) {
          // The end of the activation. Approving by signing in counts: the IdP asked nothing more.
          return await end(
            'the activation ended on a page without a form',
            decided || (activation.decision === 'approve' && (walk.logins > 0 || stepsRun)),
          );
        }
        if (cls.kind === 'consent') return await end(this.#stopReason(reading, activation.decision));
        const why =
          activation.decision === 'deny' && reading.model.controls.some((c) => c.visible && says(c, 'approve'))
            ? 'a page that asks for approval but offers no deny, cancel or abort button'
            : 'a page with controls the driver does not recognize';
        return await end(why);
      }
      return await end(`the activation did not end within ${MAX_ACTIONS} actions`);
    } catch (error) {
      throw await walkFailed(walk, error);
    } finally {
      await this.#close(walk, session);
    }
  }
}
