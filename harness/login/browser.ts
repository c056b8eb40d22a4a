/**
 * The browser login driver (docs/login.md): the one page walk (walk.ts) in Chromium through Playwright, over the
 * browser actuator (browser-actuator.ts), for any IdP including script-rendered pages. With `steps` (fill, click,
 * check, waitFor a selector; optional steps; steps for one decision only: browser-steps.ts) it runs them where a
 * sign-in is asked; without, every page is read into the page model and answered as the form driver answers it. The
 * walk ends at the redirect to the redirect_uri — caught, never loaded — or at the page where it could go no further.
 *
 * This file chooses each walk's browser context: the run's shared one (its cookies carry the IdP's sign-in from walk
 * to walk), an emptied one for a fresh session, or a new one from a session's stored state.
 */
import type { BrowserContext } from 'playwright-core';
import type { BrowserStep } from '../config/load.ts';
import { OffOriginError } from '../http/client.ts';
import { HarnessError } from '../model/failures.ts';
import type { OriginPolicy } from '../http/origin.ts';
import type { LoginWalk } from '../model/results.ts';
import { BrowserActuator } from './browser-actuator.ts';
import { runSteps } from './browser-steps.ts';
import type { WalkOptions, WalkRecorder } from './browser-requests.ts';
import { BrowserWalk } from './browser-walk.ts';
import type {
  AuthorizeOptions,
  AuthorizeOutcome,
  DeviceActivation,
  DeviceActivationOutcome,
  LoginDriver,
  PageKind,
} from './driver.ts';
import { type BrowserState, type LoginSession, sessionFor, walkOn } from './session.ts';
import { PageWalk } from './walk.ts';
import type { WalkSettings } from './walk-settings.ts';
import { WalkPosition, walkFailure } from './walk-errors.ts';
import { WalkRecord } from './walk-record.ts';

export { OPTIONAL_STEP_MS } from './browser-steps.ts';
export { RENDER_WAIT_MS } from './browser-actuator.ts';

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
  /** The names of the login form's inputs, when configured (the auto driver's; the browser driver has none). */
  usernameField?: string;
  passwordField?: string;
  /** Told of every walk when it ends (report.json's `walks`). */
  onWalk?: (walk: LoginWalk) => void;
}

/** The options of a BrowserWalk for one walk of these driver options. */
export function walkOptions(o: BrowserLoginOptions, stopAt: readonly string[], stayWithin?: string): WalkOptions {
  return {
    stopAt,
    recorder: o.recorder,
    timeoutMs: o.timeoutMs ?? 10_000,
    ...(stayWithin ? { stayWithin } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.origins ? { origins: o.origins } : {}),
    ...(o.loadAssets ? { loadAssets: true } : {}),
    ...(o.password ? { user: { username: o.username, password: o.password } } : {}),
  };
}

/** A walk on a context as new as a new one: an emptied one when there are any (given back at its end), else new. */
export async function freshBrowserWalk(o: BrowserLoginOptions, options: WalkOptions): Promise<BrowserWalk> {
  const emptied = o.emptied;
  if (emptied) return BrowserWalk.borrow(await emptied.take(), options, (context) => emptied.giveBack(context));
  return BrowserWalk.open(await o.newContext(), options);
}

/** The actuator of a walk in the browser, with these driver options. */
export function browserActuator(
  o: BrowserLoginOptions,
  walk: BrowserWalk,
  position: WalkPosition,
  firstShot: string,
): BrowserActuator {
  return new BrowserActuator({
    walk,
    timeoutMs: o.timeoutMs ?? 10_000,
    position,
    firstShot,
    ...(o.usernameField ? { usernameField: o.usernameField } : {}),
    ...(o.passwordField ? { passwordField: o.passwordField } : {}),
  });
}

/** The configured steps, run by the browser actuator (over HTTP, the walk hands the page to the browser first). */
export function stepsOf(o: BrowserLoginOptions): Pick<WalkSettings, 'steps'> {
  const steps = o.steps;
  if (!steps?.length) return {};
  const options = {
    steps,
    username: o.username,
    password: o.password,
    timeoutMs: o.timeoutMs ?? 10_000,
    ...(o.log ? { log: o.log } : {}),
  };
  return {
    steps: {
      run: (a, decision, passed) => {
        if (!(a instanceof BrowserActuator)) throw new HarnessError('the configured login steps run in the browser');
        return runSteps(a, options, decision, passed);
      },
    },
  };
}

/**
 * What a walk in the browser threw, as an error naming the page, the element and the step (walk-errors.ts), after a
 * screenshot of where the walk stopped. Not when the harness refused to go somewhere (a URL off the allowed origins, a
 * file: URL): the browser never went there, and a picture of wherever it is proves nothing.
 */
export async function browserWalkFailed(
  driver: string,
  walk: BrowserWalk,
  position: WalkPosition,
  error: unknown,
): Promise<Error> {
  if (!(error instanceof OffOriginError)) await walk.screenshot('where the walk stopped').catch(() => undefined);
  return walkFailure(driver, position, error);
}

export class BrowserLoginDriver implements LoginDriver {
  readonly name = 'browser';

  constructor(private readonly o: BrowserLoginOptions) {}

  async #walk(stopAt: readonly string[], session: LoginSession, stayWithin?: string): Promise<BrowserWalk> {
    const shared = this.#sharedContext(session);
    const options = walkOptions(this.o, stopAt, stayWithin);
    if (shared) return BrowserWalk.borrow(await shared, options);
    // A session with nothing in it yet starts from an emptied context: no cookies and no storage, as a new one.
    if (this.o.emptied && !session.hasState()) return freshBrowserWalk(this.o, options);
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

  /**
   * One walk on `session` (one at a time, the run's shared one included: an IdP may keep one pending authorization
   * request per browser — LemonLDAP::NG does, and a second tab's request took over the first one's sign-in, handing it
   * a code for the other request — or rotate a token on sign-in that a login form loaded before then carries: Django's
   * CSRF token, HTTP 403).
   */
  #run<T extends { pages: PageKind[] }>(
    choice: AuthorizeOptions['session'],
    kind: LoginWalk['kind'],
    where: { stopAt: readonly string[]; stayWithin?: string; firstShot: string },
    run: (walk: PageWalk) => Promise<T>,
  ): Promise<T> {
    const session = sessionFor(choice, this.o.sharedSession);
    return walkOn(session, async () => {
      const browserWalk = await this.#walk(where.stopAt, session, where.stayWithin);
      const position = new WalkPosition();
      const record = new WalkRecord(kind, 'browser', 'browser');
      const actuator = browserActuator(this.o, browserWalk, position, where.firstShot);
      const walk = new PageWalk(actuator, {
        username: this.o.username,
        password: this.o.password,
        position,
        record,
        ...stepsOf(this.o),
      });
      try {
        return await run(walk);
      } catch (error) {
        throw await browserWalkFailed('browser', browserWalk, position, error);
      } finally {
        await this.#close(browserWalk, session);
        this.o.onWalk?.(record.value);
      }
    });
  }

  authorize(authorizationUrl: string, stopAt: string[], options: AuthorizeOptions = {}): Promise<AuthorizeOutcome> {
    const where = {
      stopAt,
      ...(options.stayWithin ? { stayWithin: options.stayWithin } : {}),
      firstShot: 'authorization request',
    };
    return this.#run(options.session, 'authorization', where, (walk) => walk.authorize(authorizationUrl, options));
  }

  /**
   * Opens verification_uri_complete when given (unless declined), else verification_uri, types the user code into the
   * input that asks for it (in a form or not: a script-rendered input is waited for and submitted by its visible
   * button), logs in (by the steps when configured, before or after the code), and gives the decision wherever it is
   * asked. Ends at the first page that offers nothing more to do.
   */
  activateDevice(activation: DeviceActivation): Promise<DeviceActivationOutcome> {
    const complete = activation.verificationUriComplete && activation.useComplete !== false;
    const where = { stopAt: [], firstShot: complete ? 'verification URI (complete)' : 'verification URI' };
    return this.#run(activation.session, 'device activation', where, (walk) => walk.activate(activation));
  }
}
