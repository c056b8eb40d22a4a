/**
 * The auto login driver (login.driver "auto", the default; docs/login.md): every walk starts over HTTP, as the form
 * driver's, and goes on in Chromium only from a page the HTTP actuator cannot act on as the page means it — a page
 * rendered by script, a control that works by script (LemonLDAP::NG's consent "Refuse"), an input in no form, or
 * configured steps, which run in a browser. The browser goes on from the same page (the response already fetched is
 * shown, not fetched again) with the same cookies (the jar's, put into the browser context), and the cookies go back
 * into the jar when the walk ends, so the next walk starts over HTTP from where this one ended. A page that needed
 * the browser is remembered for the run: later walks that meet it hand it over at once.
 *
 * Without Chromium, walks that HTTP can do go on as they would; a walk that needs the browser is an error naming
 * Chromium and the page.
 */
import { HarnessError } from '../model/failures.ts';
import type { Actuator, Reading } from './actuator.ts';
import {
  type BrowserLoginOptions,
  browserActuator,
  browserWalkFailed,
  freshBrowserWalk,
  stepsOf,
  walkOptions,
} from './browser.ts';
import type { BrowserWalk } from './browser-walk.ts';
import { cookiesFromBrowser, cookiesIntoBrowser } from './cookies.ts';
import { HttpActuator } from './http-actuator.ts';
import { HttpLoginDriver, type HttpLoginOptions, type HttpWalkExtras, type HttpWalkSetup } from './http-walk.ts';
import type { LoginSession } from './session.ts';
import type { BrowserPages } from './walk-settings.ts';
import { walkFailure } from './walk-errors.ts';

export interface AutoLoginOptions extends HttpLoginOptions {
  /** The browser the walks go on in (its username and password are the HTTP walk's). */
  browser: Omit<BrowserLoginOptions, 'username' | 'password' | 'sharedSession' | 'sharedContext'>;
  /** Why there is no browser (no Chromium), when there is none. */
  browserUnavailable?: string;
  /** The run's memory of pages that needed the browser (one per run; default: this driver's own). */
  memory?: BrowserPages;
  /** Called when a walk goes on in the browser (the scenario's time limit becomes the browser's). */
  onBrowser?: () => void;
}

/** The key a page is remembered by: what it is (a consent for which decision) and where (origin and path). */
function pageKey(reading: Reading, decision: 'approve' | 'deny'): string {
  const { cls, model } = reading;
  const url = new URL(model.url);
  return `${cls.kind === 'consent' ? `consent:${decision}` : cls.kind} ${url.origin}${url.pathname}`;
}

/** A run's memory of the pages that needed the browser, with the reason each did. */
export class BrowserPageMemory implements BrowserPages {
  readonly #pages = new Map<string, string>();

  recall(reading: Reading, decision: 'approve' | 'deny'): string | undefined {
    const why = this.#pages.get(pageKey(reading, decision));
    return why && `as an earlier walk on this page: ${why}`;
  }

  remember(reading: Reading, decision: 'approve' | 'deny', why: string): void {
    const key = pageKey(reading, decision);
    if (!this.#pages.has(key) && !why.startsWith('as an earlier walk')) this.#pages.set(key, why);
  }
}

/** The auto driver: the HTTP walk (http-walk.ts), and the browser to go on in from a page that needs it. */
export class AutoLoginDriver extends HttpLoginDriver {
  readonly name = 'auto';
  readonly #memory: BrowserPages;
  readonly #auto: AutoLoginOptions;

  constructor(o: AutoLoginOptions) {
    super(o);
    this.#auto = o;
    this.#memory = o.memory ?? new BrowserPageMemory();
  }

  /** What a walk over HTTP gets to go on in the browser: the hand-over, and the browser walk's end. */
  protected override extras(setup: HttpWalkSetup, own: LoginSession): HttpWalkExtras {
    const o = this.#auto;
    const browser = { ...o.browser, username: o.username, password: o.password };
    let opened: BrowserWalk | undefined;
    const handOver = async (from: Actuator, reading: Reading, why: string): Promise<Actuator> => {
      const page = from instanceof HttpActuator ? from.page : undefined;
      const where = `${reading.model.url.split('?')[0]} (HTTP ${reading.model.status})`;
      if (o.browserUnavailable)
        throw new HarnessError(
          `this walk needs the browser on ${where} (${why}), and Chromium is not available: ${o.browserUnavailable}`,
        );
      if (!page) throw new HarnessError(`the walk was to go on in the browser on ${where}, but no page was fetched`);
      o.onBrowser?.();
      opened = await freshBrowserWalk(browser, walkOptions(browser, setup.stopAt, setup.stayWithin));
      await cookiesIntoBrowser(own.jar, opened.context);
      const actuator = browserActuator(browser, opened, from.position, `the page the browser went on from (${why})`);
      await actuator.show(page);
      return actuator;
    };
    return {
      settings: { handOver, memory: this.#memory, ...stepsOf(browser) },
      ended: async () => {
        if (!opened) return;
        // The browser's cookies go back to the jar: the next walk starts over HTTP where this one ended.
        await cookiesFromBrowser(opened.context, own.jar).catch(() => undefined);
        await opened.close();
      },
      failed: async (error, position) =>
        opened ? browserWalkFailed('auto', opened, position, error) : walkFailure('auto', position, error),
    };
  }
}
