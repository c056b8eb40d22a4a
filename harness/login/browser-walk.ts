/**
 * One walk through an IdP's pages in Chromium: a fresh browser context and page, every request the
 * page makes seen before it leaves (CDP Fetch interception — unlike Playwright's page.route it
 * also sees the requests a redirect makes), the redirect to the redirect_uri caught and never
 * loaded, navigations off the `stayWithin` origin blocked, each main-frame response recorded as a
 * transcript, and screenshots on request.
 */
import type { BrowserContext, Page, Request, Response } from 'playwright-core';
import { PreconditionError } from '../model/failures.ts';
import { DEFAULT_LIMITS } from '../model/limits.ts';
import { OffOriginError } from '../http/client.ts';
import type { PageKind, PageVisit, RedirectRecord, RequestRecord } from './driver.ts';
import {
  SUBMIT_FORM,
  type WalkEnd,
  type WalkOptions,
  firstLine,
  headerRecord,
  intercept,
  lowerCase,
  redirectRecord,
  replayHeaders,
  showWithCsp,
} from './browser-requests.ts';
import { type PausedRequest, Tab, type TabClient, idleTabsOf } from './browser-tab.ts';
import type { FetchedPage } from './http-actuator.ts';
import { PageActivity } from './browser-settle.ts';

export class BrowserWalk implements TabClient {
  readonly requests: RequestRecord[] = [];
  /** The HTTP redirects of the top-level page, in order (each resolved once its response is known). */
  readonly #redirects: Promise<RedirectRecord | undefined>[] = [];
  #end: WalkEnd | undefined;
  /** A page fetched over HTTP that the next navigation to its URL is answered with (showFetched), once. */
  #fetched: FetchedPage | undefined;
  #ended!: () => void;
  readonly #endedPromise = new Promise<void>((resolve) => {
    this.#ended = resolve;
  });
  /** Navigations and requests of the page: when it has settled after an action (browser-settle.ts). */
  readonly #activity: PageActivity;
  #document: Response | undefined;
  /** The navigation count when the first page answered an HTTP error without a body. */
  #bodilessErrorAt: number | undefined;
  #closed = false;
  /** The URL of the fetched page just shown (its response is not recorded again). */
  #shown: string | undefined;
  /**
   * The headers each document was served with, by URL, where the walk changed them on the way to the page (the origin
   * policy's Content-Security-Policy added, a fetched page replayed): what the IdP sent is what is recorded and judged.
   */
  readonly #served = new Map<string, Record<string, string>>();

  private constructor(
    private readonly tab: Tab,
    private readonly o: WalkOptions,
    /** Whether the walk owns its context (closes it at the end) or borrows a tab of a lasting one. */
    private readonly owns: boolean,
    /**
     * A borrowed context that is the walk's alone (a fresh session's): emptied when the walk ends, then given back
     * through this for the next fresh walk.
     */
    private readonly giveBack?: (context: BrowserContext) => void,
  ) {
    this.#activity = new PageActivity(tab.page, o.timeoutMs, () => this.#end !== undefined, this.#endedPromise);
  }

  get context(): BrowserContext {
    return this.tab.context;
  }

  get page(): Page {
    return this.tab.page;
  }

  /** A walk in a context of its own (a fresh session, or one started from a session's state): closed with the walk. */
  static async open(context: BrowserContext, options: WalkOptions): Promise<BrowserWalk> {
    try {
      return BrowserWalk.#start(await Tab.open(context), options, true);
    } catch (error) {
      await context.close().catch(() => undefined);
      throw error;
    }
  }

  /**
   * A walk in a context that outlives it (the run's shared session: its cookies carry the IdP's sign-in): on an idle
   * tab of that context, or a new one; the tab goes back when the walk ends.
   */
  static async borrow(
    context: BrowserContext,
    options: WalkOptions,
    giveBack?: (context: BrowserContext) => void,
  ): Promise<BrowserWalk> {
    const idle = idleTabsOf(context);
    try {
      const tab = idle.pop() ?? (await Tab.open(context));
      return BrowserWalk.#start(tab, options, false, giveBack);
    } catch (error) {
      if (giveBack) await context.close().catch(() => undefined);
      throw error;
    }
  }

  static #start(
    tab: Tab,
    options: WalkOptions,
    owns: boolean,
    giveBack?: (context: BrowserContext) => void,
  ): BrowserWalk {
    const walk = new BrowserWalk(tab, options, owns, giveBack);
    tab.serve(walk);
    options.signal?.addEventListener('abort', walk.#abort, { once: true });
    return walk;
  }

  get end(): WalkEnd | undefined {
    return this.#end;
  }

  /** The redirect URIs the walk ends at. */
  get stopAt(): readonly string[] {
    return this.o.stopAt;
  }

  /**
   * The scenario timed out: close the context (a borrowed tab's page), so every pending browser call fails at once.
   */
  readonly #abort = (): void => {
    void this.close(true);
  };

  /** A main-frame document response: the page shown, recorded as a transcript. */
  responded(response: Response): void {
    if (response.frame() !== this.page.mainFrame() || !response.request().isNavigationRequest()) return;
    this.#document = response;
    void this.#record(response);
  }

  /**
   * A request of the page: one that follows a redirect of a top-level navigation records that redirect (the method
   * and URL of the request it answered, its status and where it sent the page), as the form driver reports them.
   */
  requested(request: Request): void {
    this.#activity.requested();
    const redirect = redirectRecord(request, this.page, this.o.user);
    if (redirect) this.#redirects.push(redirect);
  }

  /** The redirects so far, in order. */
  async redirects(): Promise<RedirectRecord[]> {
    return (await Promise.all(this.#redirects)).filter((r): r is RedirectRecord => r !== undefined);
  }

  /** A request the page makes, paused before it leaves (Fetch.requestPaused): let go, or blocked. */
  async paused(event: PausedRequest): Promise<void> {
    const { request } = event;
    const { url, navigation, block, quiet, end, learned } = intercept(event, this.tab.mainFrameId, this.o);
    if (navigation) this.#activity.navigated();
    const record: RequestRecord = { url, method: request.method, type: event.resourceType, navigation };
    this.requests.push(record);
    if (learned) this.o.recorder.learn?.(learned);
    if (end) this.#finish(end);
    const fetched = this.#fetched;
    if (!block && navigation && fetched && request.url === fetched.url.replace(/#.*$/, '')) {
      this.#fetched = undefined;
      this.#shown = request.url;
      this.#served.set(request.url, lowerCase(fetched.headers));
      const answer = this.tab.cdp.send('Fetch.fulfillRequest', {
        requestId: event.requestId,
        responseCode: fetched.status,
        responseHeaders: replayHeaders(fetched.headers, this.o.origins?.pageCsp()),
        body: Buffer.from(fetched.body).toString('base64'),
      });
      await answer.catch(() => undefined);
      return;
    }
    if (block) record.blocked = true;
    if (block && !quiet) {
      this.o.recorder.transcript({
        kind: 'http',
        label: `browser: ${event.resourceType.toLowerCase()} request`,
        durationMs: 0,
        error: `not sent: ${block}`,
        request: { method: request.method, url, headers: lowerCase(request.headers) },
      });
    }
    const answer = block
      ? this.tab.cdp.send('Fetch.failRequest', { requestId: event.requestId, errorReason: 'Aborted' })
      : this.tab.cdp.send('Fetch.continueRequest', { requestId: event.requestId });
    await answer.catch(() => undefined); // the page or context may be gone
  }

  /**
   * A document's response, paused before the page sees it: shown with the origin policy's Content-Security-Policy on
   * top of the page's own (browser-requests.ts showWithCsp).
   */
  async document(event: PausedRequest): Promise<void> {
    if (event.responseHeaders) this.#served.set(event.request.url, headerRecord(event.responseHeaders));
    await showWithCsp(this.tab.cdp, event, this.o.origins?.pageCsp());
  }

  #finish(end: WalkEnd): void {
    this.#end ??= end;
    this.#ended();
  }

  async #record(response: Response): Promise<void> {
    const request = response.request();
    // A page fetched over HTTP and shown here was recorded when it was fetched: it was not sent again.
    if (this.#shown === request.url() && !request.redirectedFrom()) {
      this.#shown = undefined;
      return;
    }
    const timing = request.timing();
    try {
      this.o.recorder.transcript({
        kind: 'http',
        label: `browser: ${request.redirectedFrom() ? 'redirected ' : ''}page`,
        request: { method: request.method(), url: request.url(), headers: await request.allHeaders() },
        response: { status: response.status(), headers: await this.#headersOf(response) },
        durationMs: Math.max(0, Math.round(timing.responseStart)),
      });
    } catch {
      // the context closed first: nothing to record
    }
  }

  /** A request of the page finished or failed. */
  settled(): void {
    this.#activity.settled();
  }

  /** Resolves when the walk ends by itself (the redirect caught, or the origin left). */
  get ended(): Promise<void> {
    return this.#endedPromise;
  }

  /**
   * The first page: the authorization URL or the verification URI (never opened outside the origin policy). With POST,
   * the URL's query parameters are sent as an HTML form POST to the URL without its query (OIDC Core §3.1.2.1), as a
   * client's auto-submitted form would send them: the form is built in a blank page of our own, so no script of the
   * IdP's can touch it.
   */
  async open(url: string, method: 'GET' | 'POST' = 'GET'): Promise<void> {
    const refused = this.o.origins?.browserMay(url);
    if (refused) throw new OffOriginError(`the browser did not open ${url.replace(/[?#].*$/, '')}: ${refused}`);
    if (method === 'POST') return this.#post(url);
    await this.settle(async () => {
      // A caught redirect aborts the navigation goto is waiting for: that is the walk ending.
      await this.page.goto(url, { timeout: this.o.timeoutMs, waitUntil: 'load' }).catch((error: unknown) => {
        // An HTTP error without a body: Chromium shows its own error page, and the walk reads it as the IdP's error
        // page.
        if (this.#end) return;
        if (/ERR_HTTP_RESPONSE_CODE_FAILURE/.test(firstLine(error))) {
          this.#bodilessErrorAt = this.#activity.navigations;
          return;
        }
        throw new PreconditionError(`the browser could not open ${url}: ${firstLine(error)}`);
      });
    });
  }

  async #post(url: string): Promise<void> {
    const action = new URL(url);
    const fields = [...action.searchParams];
    action.search = '';
    await this.page.goto('about:blank', { timeout: this.o.timeoutMs });
    // The values go in as JSON (an expression in JavaScript), set as properties: never parsed as markup.
    const submit = `(${SUBMIT_FORM})(${JSON.stringify({ action: action.href, fields })})`;
    await this.settle(async () => {
      await this.page.evaluate(submit).catch((error: unknown) => {
        if (this.#end) return;
        throw new PreconditionError(`the browser could not POST the form to ${action.href}: ${firstLine(error)}`);
      });
    });
    // An HTTP error without a body: Chromium shows its own error page (its URL chrome-error:), which the walk reads as
    // the IdP's.
  }

  /**
   * Run an action that may navigate (a click, a submit) and wait for what follows: the walk's end,
   * the new page's load, or — when no navigation starts within a second — nothing.
   */
  settle(action: () => Promise<void>): Promise<void> {
    return this.#activity.settle(action);
  }

  /** Waits briefly for a navigation (a script or a meta refresh may redirect after the load). */
  quiet(ms = 500): Promise<boolean> {
    return this.#activity.quiet(ms);
  }

  /**
   * Chromium shows its own error page (an HTTP error without a body, a failed navigation), not a document of the IdP.
   */
  get showsBrowserError(): boolean {
    return this.page.url().startsWith('chrome-error:') || this.#bodilessErrorAt === this.#activity.navigations;
  }

  /** The URL of the last document the IdP served (the page's URL, unless Chromium shows its own error page). */
  get documentUrl(): string {
    return this.showsBrowserError ? (this.#document?.url() ?? this.page.url()) : this.page.url();
  }

  /** The HTTP status of the page shown (0 before the first). */
  get status(): number {
    return this.#document?.status() ?? 0;
  }

  /** The current page, passed as a `kind` page. */
  async visit(kind: PageKind): Promise<PageVisit> {
    const doc = this.#document;
    // The HTML as served (not the DOM after its scripts), as the form driver reads it: its metas and references.
    const body = doc
      ? await doc.text().then(
          (t) => t.slice(0, DEFAULT_LIMITS.maxBodyBytes),
          () => undefined,
        )
      : undefined;
    return {
      kind,
      url: this.documentUrl,
      status: this.status,
      headers: doc ? await this.#headersOf(doc).catch(() => ({})) : {},
      ...(body === undefined ? {} : { body }),
    };
  }

  /** A document's headers as the IdP served them (not as the walk showed them to the page). */
  async #headersOf(response: Response): Promise<Record<string, string>> {
    return this.#served.get(response.url()) ?? (await response.allHeaders());
  }

  /** The origin the walk must not leave, when there is one. */
  get stayWithin(): string | undefined {
    return this.o.stayWithin;
  }

  /**
   * Shows a page the walk fetched over HTTP (the auto driver going on in the browser from it): the navigation to its
   * URL is answered with that response — status, headers (but cookies, which the context already holds) and body —
   * from here, not sent again; its scripts then run, and what the page loads goes to the IdP as from any page.
   */
  async showFetched(page: FetchedPage): Promise<void> {
    this.#fetched = page;
    await this.open(page.url);
  }

  async screenshot(label: string): Promise<void> {
    if (this.#end?.kind === 'redirect') return; // the page still shows the last one, already shot
    await this.o.recorder.screenshot(this.page, label);
  }

  /** The page as it is now, for an outcome that ends on it. */
  async endPage(
    reason: string,
  ): Promise<{ status: number; url: string; body: string; headline: string; reason: string }> {
    if (this.showsBrowserError) return { status: this.status, url: this.documentUrl, body: '', headline: '', reason };
    const body = await this.page.content().catch(() => '');
    const title = await this.page.title().catch(() => '');
    const h1 = title
      ? ''
      : await this.page
          .locator('h1')
          .first()
          .innerText({ timeout: 500 })
          .catch(() => '');
    return { status: this.status, url: this.page.url(), body, headline: (title || h1).trim().slice(0, 200), reason };
  }

  /**
   * Ends the walk: its own context is closed; a borrowed tab goes back to its context's idle tabs (or is closed, when
   * the walk was cut short: a page in the middle of something is no page to start the next walk on).
   */
  async close(discard = false): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.o.signal?.removeEventListener('abort', this.#abort);
    this.tab.serve(undefined);
    if (this.owns) await this.context.close().catch(() => undefined);
    else if (this.giveBack) {
      if (discard || this.page.isClosed() || !(await this.tab.empty(this.requests, this.o.timeoutMs)))
        await this.context.close().catch(() => undefined);
      else {
        idleTabsOf(this.context).push(this.tab);
        this.giveBack(this.context);
      }
    } else if (discard || this.page.isClosed()) await this.page.close().catch(() => undefined);
    else idleTabsOf(this.context).push(this.tab);
  }
}
