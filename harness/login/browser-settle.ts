/**
 * When a page in Chromium has settled after an action (browser-walk.ts): a navigation the action started has loaded,
 * or — when none starts within NAVIGATION_START_MS — the page, changing in place, has made no request for a while.
 * The walk tells it of every navigation and of every request that starts or ends.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'playwright-core';

/** How long to wait for a click to start a navigation before taking it as an in-page change. */
const NAVIGATION_START_MS = 1_000;
/** How long a page that changes in place must make no request before it is read again. */
const NETWORK_QUIET_MS = 150;
const NETWORK_WAIT_MS = 5_000;

export class PageActivity {
  /** Top-level navigations so far. */
  navigations = 0;
  /** Requests of the page in flight, and when the last one started or ended. */
  #inflight = 0;
  #lastNetwork = 0;

  /** `ended`: whether the walk has ended by itself; `endedPromise` resolves when it does. */
  constructor(
    private readonly page: Page,
    private readonly timeoutMs: number,
    private readonly ended: () => boolean,
    private readonly endedPromise: Promise<void>,
  ) {}

  navigated(): void {
    this.navigations++;
  }

  /** A request of the page started. */
  requested(): void {
    this.#inflight++;
    this.#lastNetwork = performance.now();
  }

  /** A request of the page finished or failed. */
  settled(): void {
    this.#inflight = Math.max(0, this.#inflight - 1);
    this.#lastNetwork = performance.now();
  }

  /**
   * Waits until the page has had no request in flight for NETWORK_QUIET_MS (a page that signs in by XHR, then asks for
   * the profile, then re-renders), at most NETWORK_WAIT_MS (a page may keep a request open: long polling).
   */
  async #networkQuiet(): Promise<void> {
    const deadline = performance.now() + Math.min(this.timeoutMs, NETWORK_WAIT_MS);
    while (!this.ended() && performance.now() < deadline) {
      if (this.#inflight === 0 && performance.now() - this.#lastNetwork >= NETWORK_QUIET_MS) return;
      await sleep(25);
    }
  }

  /** The page's next load, or nothing when none comes within the time limit. */
  #load(): Promise<void> {
    return this.page.waitForEvent('load', { timeout: this.timeoutMs }).then(
      () => undefined,
      () => undefined,
    );
  }

  /** Runs an action that may navigate and waits for what follows (BrowserWalk.settle). */
  async settle(action: () => Promise<void>): Promise<void> {
    const before = this.navigations;
    const loaded = this.#load();
    await Promise.race([action(), this.endedPromise]);
    if (this.ended()) return;
    const started = await this.#until(() => this.navigations > before, NAVIGATION_START_MS);
    if (started) await Promise.race([loaded, this.endedPromise]);
    // No navigation: the page changes in place, often after requests of its own (a sign-in by XHR).
    else await this.#networkQuiet();
  }

  /** Waits briefly for a navigation (BrowserWalk.quiet): whether one started. */
  async quiet(ms: number): Promise<boolean> {
    const before = this.navigations;
    const loaded = this.#load();
    const started = await this.#until(() => this.navigations > before, ms);
    if (started) await Promise.race([loaded, this.endedPromise]);
    return started;
  }

  async #until(test: () => boolean, ms: number): Promise<boolean> {
    const deadline = performance.now() + ms;
    while (!test() && !this.ended() && performance.now() < deadline) await sleep(25);
    return test() || this.ended();
  }
}
