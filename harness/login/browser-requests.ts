/**
 * A browser walk's requests, apart from the walk's own state: its options (what it intercepts, where its evidence
 * goes), what becomes of each request it intercepts (`intercept`: the redirect to the redirect_uri caught, requests
 * off the allowed origins blocked, assets not sent), the form a POST authorization request is sent with, the headers
 * a page fetched over HTTP is shown with, the redirects a walk records, the response parameters of a form_post, and
 * a document shown with the origin policy's Content-Security-Policy.
 */
import type { CDPSession, Page, Request } from 'playwright-core';
import type { OriginPolicy } from '../http/origin.ts';
import type { HttpEvidence } from '../model/results.ts';
import type { RedirectEnd } from './actuator.ts';
import type { PausedRequest } from './browser-tab.ts';
import { type RedirectRecord, isRedirectTo, responseParams } from './driver.ts';

/** How a walk ended before the driver stopped it: at the redirect_uri, or at the edge of `stayWithin`. */
export type WalkEnd = RedirectEnd | { kind: 'left'; url: string } | { kind: 'refused'; url: string; reason: string };

/** What decides a paused request's fate: part of a walk's options. */
export interface InterceptOptions {
  /** Redirect URIs (compared by origin and path): a navigation there is caught, not loaded. */
  stopAt: readonly string[];
  /** An origin the walk must not leave: requests elsewhere are blocked, a navigation ends the walk. */
  stayWithin?: string;
  /**
   * Where the browser may go at all (docs/security.md): any other request is blocked, and a navigation
   * elsewhere ends the walk with an OffOriginError (an `error` naming the URL and the rule).
   */
  origins?: OriginPolicy;
  /**
   * Load images, fonts and media (default false: they are never sent). A sign-in needs none of them, and each is a
   * request the IdP serves for nothing (one IdP leaked a file descriptor per static file it served).
   */
  loadAssets?: boolean;
}

/** Where a walk's screenshots and transcripts go (the scenario's evidence). */
export interface WalkRecorder {
  /** Saves a screenshot of the page as evidence; never throws. */
  screenshot(page: Page, label: string): Promise<void>;
  transcript(e: HttpEvidence): void;
  /** Learn the tokens of an authorization response caught before it was loaded (for redaction). */
  learn?(fields: Record<string, string>): void;
}

/** A browser walk's options (browser-walk.ts BrowserWalk): what it intercepts, where its evidence goes, how long. */
export interface WalkOptions extends InterceptOptions {
  /**
   * The user, only to tell which POSTs carried the password (RedirectRecord.credentials, as the HTTP actuator knows
   * from the form it filled); never recorded. Without it a POST "may carry" credentials.
   */
  user?: { username: string; password: string };
  recorder: WalkRecorder;
  /** How long a navigation may take (ms). */
  timeoutMs: number;
  signal?: AbortSignal;
}

/** What becomes of a paused request: sent, or blocked and why; a navigation blocked so may end the walk. */
export interface Interception {
  url: string;
  /** A top-level document request (the page navigating). */
  navigation: boolean;
  block?: string;
  /** Blocked without a transcript (an asset a sign-in needs none of). */
  quiet?: boolean;
  end?: WalkEnd;
  /** The response parameters of a redirect to the redirect_uri caught (for redaction). */
  learned?: Record<string, string>;
}

/**
 * A request the page makes, before it leaves: the redirect to the redirect_uri is caught, never sent (and ends the
 * walk when the page navigates there); a request the origin policy refuses, or one off `stayWithin`, is blocked (a
 * navigation there ends the walk); images, fonts and media are not sent unless `loadAssets`.
 */
export function intercept(event: PausedRequest, mainFrameId: string, o: InterceptOptions): Interception {
  const { request } = event;
  const url = request.url + (request.urlFragment ?? '');
  const navigation = event.resourceType === 'Document' && event.frameId === mainFrameId;
  const refused = o.origins?.browserMay(url);
  if (isRedirectTo(url, o.stopAt)) {
    const form = formPostParams(request);
    const params = { ...responseParams(url), ...form };
    const method = request.method === 'POST' ? 'POST' : 'GET';
    const end: WalkEnd = { kind: 'redirect', url, params, method, ...(method === 'POST' ? { formFields: form } : {}) };
    return {
      url,
      navigation,
      block: 'the redirect to the redirect_uri, caught and not loaded',
      learned: params,
      ...(navigation ? { end } : {}),
    };
  }
  if (refused)
    return {
      url,
      navigation,
      block: refused,
      ...(navigation ? { end: { kind: 'refused', url, reason: refused } } : {}),
    };
  if (o.stayWithin && /^https?:/.test(url) && new URL(url).origin !== new URL(o.stayWithin).origin)
    return {
      url,
      navigation,
      block: `outside ${new URL(o.stayWithin).origin}, blocked`,
      ...(navigation ? { end: { kind: 'left', url } } : {}),
    };
  if (!o.loadAssets && ASSET_TYPES.has(event.resourceType))
    return {
      url,
      navigation,
      block: `${event.resourceType.toLowerCase()}: not loaded (login.loadAssets)`,
      quiet: true,
    };
  return { url, navigation };
}

/** Requests a sign-in needs none of (CDP Network.ResourceType): not sent unless login.loadAssets. */
const ASSET_TYPES = new Set(['Image', 'Font', 'Media']);

/** Runs in the blank page: a form of hidden inputs, POSTed to `action` (the page's document, not the IdP's). */
export const SUBMIT_FORM = `({ action, fields }) => {
  const form = document.createElement('form');
  form.method = 'post';
  form.action = action;
  for (const [name, value] of fields) {
    const input = document.createElement('input');
    input.type = 'hidden';
    input.name = name;
    input.value = value;
    form.append(input);
  }
  document.body.append(form);
  setTimeout(() => form.submit(), 0); // after evaluate has returned: the navigation then destroys nothing it waits on
}`;

/** Headers a fetched page is shown with: not its cookies (already in the context), nor how it was transferred. */
const NOT_REPLAYED = new Set(['set-cookie', 'content-length', 'content-encoding', 'transfer-encoding', 'connection']);

export function replayHeaders(
  headers: Record<string, string>,
  csp: string | undefined,
): { name: string; value: string }[] {
  const replayed = Object.entries(headers)
    .filter(([name]) => !NOT_REPLAYED.has(name.toLowerCase()))
    .map(([name, value]) => ({ name, value }));
  return csp ? [...replayed, { name: 'Content-Security-Policy', value: csp }] : replayed;
}

/** form_post (OAuth 2.0 Form Post Response Mode): the response parameters are the POSTed fields. */
export function formPostParams(request: PausedRequest['request']): Record<string, string> {
  const type = Object.entries(request.headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? '';
  if (request.method !== 'POST' || !/application\/x-www-form-urlencoded/i.test(type)) return {};
  const body =
    request.postData ??
    (request.postDataEntries ?? []).map((e) => Buffer.from(e.bytes ?? '', 'base64').toString()).join('');
  return Object.fromEntries(new URLSearchParams(body));
}

/**
 * Response headers as CDP lists them, as one record with lower-case names: repeated headers joined with ", " (as
 * HTTP allows, RFC 9110 §5.3), Set-Cookie with a newline (as Playwright joins it).
 */
export function headerRecord(headers: readonly { name: string; value: string }[]): Record<string, string> {
  const record: Record<string, string> = {};
  for (const { name, value } of headers) {
    const key = name.toLowerCase();
    record[key] = key in record ? `${record[key]}${key === 'set-cookie' ? '\n' : ', '}${value}` : value;
  }
  return record;
}

/**
 * The redirect a request of the page follows, when it follows one of a top-level navigation: the method and URL of the
 * request it answered, its status and where it sent the page (as the form driver reports them), once its response is
 * known; undefined for any other request.
 */
export function redirectRecord(
  request: Request,
  page: Page,
  user: { username: string; password: string } | undefined,
): Promise<RedirectRecord | undefined> | undefined {
  const from = request.redirectedFrom();
  if (!from?.isNavigationRequest() || from.frame() !== page.mainFrame()) return undefined;
  return from.response().then(
    (response) =>
      response
        ? {
            method: from.method(),
            url: from.url(),
            status: response.status(),
            location: request.url(),
            ...(from.method() === 'POST' && user
              ? { credentials: carriesPassword(from.postData(), user.password, user.username) }
              : {}),
          }
        : undefined,
    () => undefined,
  );
}

/** A form field or JSON member named like a password. */
const PASSWORD_NAME = /pass|pwd|secret|credential/i;

/**
 * Whether a POST body carries the user's password: a field named like a password with a value, or the password's value
 * anywhere (a JSON sign-in by script) — the value alone only when it is not also the username (a demo user whose
 * password is its login would make every POST naming the user look like a sign-in). An empty body carries nothing.
 */
export function carriesPassword(body: string | null, password: string, username?: string): boolean {
  if (!body || !password) return false;
  const fields = [...new URLSearchParams(body)];
  if (fields.some(([name, value]) => value !== '' && PASSWORD_NAME.test(name))) return true;
  if (password === username) return PASSWORD_NAME.test(body) && body.includes(password);
  return fields.some(([, value]) => value === password) || body.includes(JSON.stringify(password).slice(1, -1));
}

export function lowerCase(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

/**
 * A document's response, paused before the page sees it: shown with one more Content-Security-Policy, the origin
 * policy's (OriginPolicy.pageCsp), which Chromium enforces on top of the page's own. It reaches what request
 * interception does not: a WebSocket (ws: or wss:) the page's script opens.
 */
export async function showWithCsp(cdp: CDPSession, event: PausedRequest, csp: string | undefined): Promise<void> {
  const status = event.responseStatusCode;
  try {
    // A redirect shows no page; a response that failed has none to show.
    if (!csp || status === undefined || (status >= 300 && status < 400)) {
      await cdp.send('Fetch.continueRequest', { requestId: event.requestId });
      return;
    }
    // Chromium enforces a CSP added to a fulfilled response (one added by continueResponse is not).
    const { body, base64Encoded } = await cdp.send('Fetch.getResponseBody', { requestId: event.requestId });
    await cdp.send('Fetch.fulfillRequest', {
      requestId: event.requestId,
      responseCode: status,
      responseHeaders: [
        ...(event.responseHeaders ?? []).filter(
          (h) => !NOT_REPLAYED.has(h.name.toLowerCase()) || /^set-cookie$/i.test(h.name),
        ),
        { name: 'Content-Security-Policy', value: csp },
      ],
      body: base64Encoded ? body : Buffer.from(body).toString('base64'),
    });
  } catch {
    await cdp.send('Fetch.continueRequest', { requestId: event.requestId }).catch(() => undefined); // gone
  }
}

export function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}
