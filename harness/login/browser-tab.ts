/**
 * A Chromium page with its DevTools session and request interception (CDP Fetch), which serves one walk at a time:
 * every request the page makes is paused and handed to the walk it serves (`TabClient`), or failed when it serves
 * none. A context that outlives its walks (the run's shared session) keeps its idle tabs for the next walk.
 */
import type { BrowserContext, CDPSession, Page, Request, Response } from 'playwright-core';

/** Fetch.requestPaused as far as the walk reads it (the Chrome DevTools Protocol). */
export interface PausedRequest {
  requestId: string;
  frameId: string;
  resourceType: string;
  request: {
    url: string;
    urlFragment?: string;
    method: string;
    headers: Record<string, string>;
    postData?: string;
    postDataEntries?: { bytes?: string }[];
  };
  /** Set when paused at the response stage (a page's document, for its Content-Security-Policy). */
  responseStatusCode?: number;
  responseErrorReason?: string;
  responseHeaders?: { name: string; value: string }[];
}

/** What a tab hands the page's requests and responses to: the walk it serves (browser-walk.ts BrowserWalk). */
export interface TabClient {
  /** A request paused before it leaves: let go, blocked or answered. */
  paused(event: PausedRequest): Promise<void>;
  /** A document's response paused before the page sees it. */
  document(event: PausedRequest): Promise<void>;
  responded(response: Response): void;
  requested(request: Request): void;
  /** A request finished or failed. */
  settled(): void;
}

/**
 * A page with its DevTools session and request interception, for one walk at a time. A walk on the run's shared
 * session borrows one from its context's idle tabs (a new page costs Chromium a renderer), and gives it back when it
 * ends; between walks a request the page still makes is failed, so nothing leaves it unseen.
 */
export class Tab {
  #walk: TabClient | undefined;
  private constructor(
    readonly context: BrowserContext,
    readonly page: Page,
    readonly cdp: CDPSession,
    readonly mainFrameId: string,
  ) {}

  static async open(context: BrowserContext): Promise<Tab> {
    // A context opened ahead comes with a blank page (BrowserHost.newContext): the first tab uses it.
    const page = context.pages().find((p) => !tabbed.has(p) && p.url() === 'about:blank') ?? (await context.newPage());
    tabbed.add(page);
    const cdp = await context.newCDPSession(page);
    const { frameTree } = await cdp.send('Page.getFrameTree');
    const tab = new Tab(context, page, cdp, frameTree.frame.id);
    cdp.on('Fetch.requestPaused', (event: PausedRequest) => {
      const walk = tab.#walk;
      if (walk && (event.responseStatusCode !== undefined || event.responseErrorReason !== undefined))
        void walk.document(event);
      else if (walk) void walk.paused(event);
      else void cdp.send('Fetch.failRequest', { requestId: event.requestId, errorReason: 'Aborted' }).catch(() => 0);
    });
    // Every request at its start (let go or blocked), and every document again at its response (its CSP, below).
    await cdp.send('Fetch.enable', {
      patterns: [
        { urlPattern: '*', requestStage: 'Request' },
        { urlPattern: '*', resourceType: 'Document', requestStage: 'Response' },
      ],
    });
    page.on('response', (response) => tab.#walk?.responded(response));
    page.on('request', (request) => tab.#walk?.requested(request));
    page.on('requestfinished', () => tab.#walk?.settled());
    page.on('requestfailed', () => tab.#walk?.settled());
    return tab;
  }

  /**
   * Leaves the context as a new one would be to any site, after a walk that sent `requests`: its page on about:blank
   * (the IdP's page unloaded), the storage of every origin the walk sent a request to cleared (local and session
   * storage, IndexedDB, caches, service workers: Storage.clearDataForOrigin "all"), and every cookie of the context.
   * false when that could not be done (the context is then closed, never reused). The HTTP cache stays, as a
   * returning user's browser keeps it.
   */
  async empty(requests: readonly { url: string }[], timeoutMs: number): Promise<boolean> {
    try {
      if (this.context.pages().length !== 1) return false; // a page the IdP opened (a popup) goes with the context
      await this.page.goto('about:blank', { timeout: timeoutMs });
      const origins = new Set<string>();
      for (const { url } of requests) {
        try {
          const { protocol, origin } = new URL(url);
          if (protocol === 'http:' || protocol === 'https:') origins.add(origin);
        } catch {
          // not a URL a browser would have stored anything for
        }
      }
      for (const origin of origins) await this.cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' });
      await this.context.clearCookies();
      return true;
    } catch {
      return false;
    }
  }

  /** The walk the tab now serves (undefined: none; every request is failed). */
  serve(walk: TabClient | undefined): void {
    this.#walk = walk;
  }
}

/** The pages a Tab has taken. */
const tabbed = new WeakSet<Page>();

/** The idle tabs of a context that outlives its walks (the run's shared session's). */
const idleTabs = new WeakMap<BrowserContext, Tab[]>();

/** The idle tabs of `context` (a list the caller takes a tab from, or gives one back to). */
export function idleTabsOf(context: BrowserContext): Tab[] {
  const idle = idleTabs.get(context) ?? [];
  idleTabs.set(context, idle);
  return idle;
}
