/**
 * The login driver interface: the front channel of a flow. A driver opens an authorization URL,
 * logs the user in, answers consent, and stops at the redirect to the redirect_uri — never loading
 * it — or at the page where it could go no further. It also activates devices (RFC 8628 §3.3):
 * the user enters a device's user code at the verification URI, logs in, and approves or denies.
 * `form.ts` does this over HTTP; `browser.ts` in Chromium (Playwright).
 */

import type { SessionChoice } from './session.ts';

export type { SessionChoice } from './session.ts';
export { LoginSession } from './session.ts';

export interface AuthorizeOptions {
  /** Answer a consent page by approving (default) or denying. */
  consent?: 'approve' | 'deny';
  /**
   * false: act on no page at all (no login, no consent): stop at the first page the IdP shows,
   * as a page outcome. For requests that must be answered without any interaction (prompt=none).
   */
  interact?: boolean;
  /**
   * false: never sign the user in: a walk that meets a login (or identifier) form stops there as a page outcome, and
   * configured login steps do not run. For the logout walk (OIDC RP-Initiated Logout), where a login page after the
   * user agreed to log out is where a logged-out user lands, not a reason to sign in again.
   */
  signIn?: boolean;
  /**
   * POST: send the authorization request as an HTML form POST of the URL's query parameters to
   * the URL without its query (OIDC Core §3.1.2.1), as a page's auto-submitted form would.
   */
  method?: 'GET' | 'POST';
  /**
   * The IdP session the walk starts from (session.ts): `fresh` (default: a new cookie jar or
   * browser context, so the user signs in), `shared` (the run's one session: a sign-in — and
   * a consent — the IdP remembers from an earlier walk carries over), or a LoginSession the
   * scenario holds (two authorizations sharing one sign-in and no other walk's).
   */
  session?: SessionChoice;
  /**
   * An origin the walk must not leave: a redirect anywhere else (other than to a stopAt URI) is
   * not followed, and the walk ends as a page outcome whose `location` is that redirect.
   */
  stayWithin?: string;
  /**
   * ctx.authorize only: push the request to the PAR endpoint first (RFC 9126) and open the
   * authorization endpoint with client_id and request_uri. Default: when the target requires
   * PAR (require_pushed_authorization_requests).
   */
  par?: boolean;
}

export interface RedirectOutcome {
  kind: 'redirect';
  /**
   * Whether the walk passed a consent page (one that asks for access: see page.ts). false on a
   * redirect means the IdP did not ask: it remembers an earlier consent, or asks none for this
   * client — a remembered consent, never a failure by itself.
   */
  consentShown?: boolean;
  /** The redirect target (to the redirect_uri), never fetched. */
  url: string;
  /** Parameters from its query, fragment (or form_post fields): code, state, error, iss, … */
  params: Record<string, string>;
  /**
   * How the response was to reach the redirect URI: GET (an HTTP redirect, or a page that sends the browser there), or
   * POST (a form posted there: OAuth 2.0 Form Post Response Mode). Absent from drivers that cannot tell.
   */
  method?: 'GET' | 'POST';
  /**
   * The fields of a form posted to the redirect URI (its body), apart from `url`'s query and fragment: form_post.
   * `params` holds them too.
   */
  formFields?: Record<string, string>;
  /**
   * The form was taken off the page by a driver that runs no script (the form driver): no page submitted it, and
   * whether it would have is unseen. Absent when the page itself submitted the form (Chromium saw the POST).
   */
  formTaken?: true;
  /** The pages passed on the way, in order. */
  pages: PageKind[];
  /** The same pages with their responses' headers (drivers that can see them report them). */
  visits?: PageVisit[];
  /** Every request the page made or tried, in order (drivers that see them: the browser). */
  requests?: RequestRecord[];
  /** Every HTTP redirect on the way, with the method of the request it answered (the form driver reports them). */
  redirects?: RedirectRecord[];
}

/** One HTTP redirect a walk met: e.g. to check that a login POST is never answered 307 (RFC 9700 §4.12). */
export interface RedirectRecord {
  method: string;
  url: string;
  status: number;
  location: string;
  /**
   * For a POST: whether it carried the user's credentials (HTTP: a filled password input of the form submitted;
   * Chromium: the user's password in the POST body); absent where the actuator cannot tell, which a scenario takes as
   * "may carry them".
   */
  credentials?: boolean;
}

/** The page a driver ended on, and why. */
export interface EndPage {
  status: number;
  url: string;
  body: string;
  /** The page's title or first heading. */
  headline: string;
  /** Why the driver stopped here. */
  reason: string;
  /**
   * The shared page walk (page.ts) took this page for the IdP's error page: an HTTP error status,
   * or a page that shows an error box (role="alert", an error class) and asks for nothing.
   */
  errorPage?: boolean;
  /**
   * The walk stopped because the page asks the user for nothing: an error page, or a page (any status, any text, no
   * error class needed) with no control a user would act on (links, menus and account controls aside); over HTTP not
   * one that its scripts may still render. Not set where the walk stopped for a reason of its own (a login that came
   * back, a consent without the control, a redirect off the IdP).
   */
  asksNothing?: boolean;
  /** The walk stopped at a login (or identifier) form because it was asked not to sign in (`signIn: false`). */
  signInPage?: boolean;
  /** Whether the walk passed a consent page before it stopped. */
  consentShown?: boolean;
  /** A redirect the driver did not follow because it left the `stayWithin` origin. */
  location?: string;
  /**
   * The page held a form to the redirect URI (form_post) that it never submitted while the browser watched it: the
   * form's action, method, field names and how long it was watched.
   */
  unsentForm?: { url: string; method: 'GET' | 'POST'; fields: string[]; waitedMs: number };
  /** The pages it acted on, in order. */
  pages: PageKind[];
  visits?: PageVisit[];
  requests?: RequestRecord[];
  redirects?: RedirectRecord[];
}

export interface PageOutcome extends EndPage {
  kind: 'page';
}

/** The pages a driver acted on: the login form, a consent or approve/deny page, a user-code form. */
export type PageKind = 'login' | 'consent' | 'user-code';

/** How a page reads to the drivers (page.ts). */
export type { PageClass, PageModel, PageControl } from './page.ts';

/** One page of `pages` as it was served: e.g. for the headers that forbid framing (RFC 9700 §4.16). */
export interface PageVisit {
  kind: PageKind;
  url: string;
  status: number;
  /** Response headers, names in lower case (repeated headers joined with ", "). */
  headers: Record<string, string>;
  /** The page's HTML as served, where the driver read it: e.g. for a referrer meta tag. */
  body?: string;
}

/** A request a browser made or tried during a walk: navigations, and everything a page loads. */
export interface RequestRecord {
  url: string;
  method: string;
  /** The resource type as the browser names it: Document, Stylesheet, Script, Image, Fetch, … */
  type: string;
  /** A navigation of the top-level page (not of a frame, not a subresource). */
  navigation: boolean;
  /** Stopped before it was sent: the redirect to the redirect_uri, or outside `stayWithin`. */
  blocked?: boolean;
}

export type AuthorizeOutcome = RedirectOutcome | PageOutcome;

export interface DeviceActivation {
  /** verification_uri from the device authorization response (RFC 8628 §3.2). */
  verificationUri: string;
  /** verification_uri_complete, when the server gave one (a driver may open it instead). */
  verificationUriComplete?: string;
  userCode: string;
  /** What the user answers when asked whether the device may have access. */
  decision: 'approve' | 'deny';
  /** Open verificationUriComplete when there is one (default true); false types the code at verificationUri. */
  useComplete?: boolean;
  /** The IdP session the activation starts from (as AuthorizeOptions.session; default fresh). */
  session?: SessionChoice;
}

/** The page the activation ended on: the IdP's confirmation, an error page, or where it went no further. */
export interface DeviceActivationOutcome extends EndPage {
  /**
   * Whether the user's decision was given: a deny (or cancel/abort) control was submitted, or,
   * for approve, an approving one was — or the activation ended after the code and the login
   * were accepted without asking (the IdP approves by signing in).
   */
  decided: boolean;
}

export interface LoginDriver {
  readonly name: string;
  /**
   * Follow `authorizationUrl` as a user would. `stopAt` lists redirect URIs (compared by origin
   * and path) at which to stop: the one in the request and the client's registered one.
   */
  authorize(authorizationUrl: string, stopAt: string[], options?: AuthorizeOptions): Promise<AuthorizeOutcome>;
  /**
   * Activate a device as its user would (RFC 8628 §3.3): open the verification URI, enter the
   * user code, log in, and approve or deny. It never judges the outcome; the device's next
   * poll shows what the IdP did.
   */
  activateDevice(activation: DeviceActivation): Promise<DeviceActivationOutcome>;
}

/** `https://app/cb?x#y` → `https://app/cb`: what a redirect is compared by. */
export function redirectBase(uri: string, base?: string): string | undefined {
  try {
    const u = new URL(uri, base);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return undefined;
  }
}

export function isRedirectTo(location: string, stopAt: readonly string[], base?: string): boolean {
  const target = redirectBase(location, base);
  return target !== undefined && stopAt.some((s) => redirectBase(s) === target);
}

export function responseParams(url: string): Record<string, string> {
  const u = new URL(url);
  const params: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(u.hash.slice(1))) params[k] = v;
  for (const [k, v] of u.searchParams) params[k] = v;
  return params;
}
