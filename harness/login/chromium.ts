/**
 * Chromium from the system, for the browser login driver and the browser scenarios: found by
 * CHROMIUM_PATH, else Debian's /usr/bin/chromium, else an installed Chrome; launched headless
 * through playwright-core (which never downloads a browser) with the flags of a machine that has
 * no network beyond loopback. One browser serves a whole run; each walk gets its own context.
 */
import { accessSync, constants } from 'node:fs';
import type { Browser, BrowserContext } from 'playwright-core';
import { HarnessError } from '../model/failures.ts';
import type { BrowserState } from './session.ts';

/** Where a Chromium is looked for after CHROMIUM_PATH, in order. */
export const CHROMIUM_CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/opt/google/chrome/chrome',
  '/snap/bin/chromium',
] as const;

export const CHROMIUM_INSTALL = 'apt-get update && apt-get install -y chromium';

export const CHROMIUM_ARGS = [
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  // Containers give /dev/shm 64 MB, too little for Chromium: use the temp folder instead.
  '--disable-dev-shm-usage',
] as const;

/**
 * The flags for this process: Chromium's sandbox stays on (it is what keeps a hostile page in its
 * renderer), except as root, where Chromium refuses to start with it.
 */
export function chromiumArgs(uid: number | undefined = process.getuid?.()): string[] {
  return uid === 0 ? ['--no-sandbox', ...CHROMIUM_ARGS] : [...CHROMIUM_ARGS];
}

/** The screenshots' size: the pages of an IdP are small forms. */
export const VIEWPORT = { width: 800, height: 600 } as const;

export function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Where Chromium is, or why there is none; `setting` names the environment variable that was set
 * to a path that is not an executable (a mistake to report, not a reason to skip).
 */
export type ChromiumLookup = { path: string } | { missing: string; setting?: 'CHROMIUM_PATH' };

/** The Chromium to use, or why there is none (with the way to get one). */
export function findChromium(env: NodeJS.ProcessEnv = process.env): ChromiumLookup {
  const chosen = env.CHROMIUM_PATH;
  if (chosen) {
    return executable(chosen)
      ? { path: chosen }
      : {
          missing:
            `CHROMIUM_PATH is "${chosen}", which is not an executable file; point it at Chromium or Chrome, ` +
            `or unset it to use ${CHROMIUM_CANDIDATES[0]}`,
          setting: 'CHROMIUM_PATH',
        };
  }
  const found = CHROMIUM_CANDIDATES.find(executable);
  return found
    ? { path: found }
    : {
        missing:
          `no Chromium was found (CHROMIUM_PATH is not set and none of ${CHROMIUM_CANDIDATES.join(', ')} ` +
          `exists); install Debian's chromium (${CHROMIUM_INSTALL}) or set CHROMIUM_PATH`,
      };
}

/** How many emptied contexts a BrowserHost keeps for fresh walks (a run's walks at once, and some to spare). */
const EMPTIED_KEPT = 8;

/**
 * A browser for one run (or one test file): launched on first use, shared by every walk, closed
 * once. `available` answers without launching anything.
 */
export class BrowserHost {
  readonly #lookup: ChromiumLookup;
  #browser: Promise<Browser> | undefined;
  /** A new context with one blank page, opened ahead for the next `newContext()` (a page costs Chromium a renderer). */
  #spare: Promise<BrowserContext | undefined> | undefined;
  /** Contexts that fresh walks gave back emptied (giveBack), for the next fresh walk: most recently given first. */
  readonly #emptied: BrowserContext[] = [];
  /** Contexts whose closing takes them out of #emptied. */
  readonly #watched = new WeakSet<BrowserContext>();

  constructor(lookup: ChromiumLookup = findChromium()) {
    this.#lookup = lookup;
  }

  /** Why there is no browser, or undefined when there is one. */
  get unavailable(): string | undefined {
    return 'missing' in this.#lookup ? this.#lookup.missing : undefined;
  }

  /**
   * Why the browser is wrongly set up (CHROMIUM_PATH names no executable), or undefined: a
   * scenario that needs the browser is then an error, not a skip.
   */
  get misconfigured(): string | undefined {
    return 'setting' in this.#lookup && this.#lookup.setting ? this.#lookup.missing : undefined;
  }

  get executablePath(): string | undefined {
    return 'path' in this.#lookup ? this.#lookup.path : undefined;
  }

  #launch(): Promise<Browser> {
    if ('missing' in this.#lookup)
      return Promise.reject(new HarnessError(`the browser is not available: ${this.#lookup.missing}`));
    const path = this.#lookup.path;
    return import('playwright-core')
      .then(({ chromium }) => chromium.launch({ executablePath: path, headless: true, args: chromiumArgs() }))
      .catch((error: unknown) => {
        throw new HarnessError(
          `Chromium at ${path} did not start: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
        );
      });
  }

  /**
   * A fresh context: its own cookies and storage, as a new user agent would have (or those of `state`, a session's).
   */
  async newContext(state?: BrowserState): Promise<BrowserContext> {
    this.#browser ??= this.#launch();
    const browser = await this.#browser.catch((error: unknown) => {
      this.#browser = undefined; // a later call may try again
      throw error;
    });
    if (state) return BrowserHost.#open(browser, state);
    // A context without state is as new as any: the one opened ahead, if it is ready, and the next is opened ahead.
    // Taken and replaced at once: two callers never get the same one.
    const ahead = this.#spare;
    this.#spare = BrowserHost.#open(browser).then(
      async (context) => {
        await context.newPage();
        return context;
      },
      () => undefined,
    );
    return (await ahead) ?? BrowserHost.#open(browser);
  }

  /**
   * A context for a fresh walk: one an earlier fresh walk emptied and gave back (no cookies, no storage: as new to any
   * site as a new context, at a fraction of the cost of the renderer a new one starts), else a new one.
   */
  async emptiedContext(): Promise<BrowserContext> {
    return this.#emptied.pop() ?? this.newContext();
  }

  /**
   * Takes back a context a fresh walk emptied (its cookies and the storage of every origin it visited cleared, its one
   * tab on about:blank), for `emptiedContext`. At most EMPTIED_KEPT are kept; others are closed.
   */
  giveBack(context: BrowserContext): void {
    if (this.#emptied.length >= EMPTIED_KEPT) {
      void context.close().catch(() => undefined);
      return;
    }
    if (!this.#watched.has(context)) {
      this.#watched.add(context);
      context.once('close', () => {
        const at = this.#emptied.indexOf(context);
        if (at >= 0) this.#emptied.splice(at, 1);
      });
    }
    this.#emptied.push(context);
  }

  static #open(browser: Browser, state?: BrowserState): Promise<BrowserContext> {
    return browser.newContext({
      viewport: VIEWPORT,
      ignoreHTTPSErrors: false,
      serviceWorkers: 'block',
      ...(state ? { storageState: state } : {}),
    });
  }

  async close(): Promise<void> {
    const emptied = this.#emptied.splice(0);
    await Promise.all(emptied.map((c) => c.close().catch(() => undefined)));
    const spare = this.#spare;
    this.#spare = undefined;
    await spare?.then((c) => c?.close()).catch(() => undefined);
    const browser = this.#browser;
    this.#browser = undefined;
    if (browser)
      await browser.then(
        (b) => b.close(),
        () => undefined,
      );
  }
}
