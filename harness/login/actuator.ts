/**
 * The two ways a page walk acts on an IdP's pages: over HTTP with a cookie jar (http-actuator.ts) or in Chromium
 * (browser-actuator.ts). The walk (walk.ts) reads each page through its actuator into the one page model (page.ts),
 * decides what a user would do there (an `Action`), and asks the actuator to do it. An actuator that cannot do an
 * action as the page means it (a control that works by script, an input in no form) says why (`Refusal`) instead of
 * doing something else; the form driver then stops or fails, the auto driver hands the page to the browser.
 */
import type { EndPage, PageKind, PageVisit, RedirectRecord, RequestRecord } from './driver.ts';
import type { PageClass, PageControl, PageModel } from './page.ts';
import type { WalkPosition } from './walk-errors.ts';

/** A page as an actuator read it: the model, its class, and the actuator's handle on the controls. */
export interface Reading {
  model: PageModel;
  cls: PageClass;
  /** The browser's mark of this reading's controls (browser-page.ts); empty over HTTP. */
  snapshot: string;
}

/** What a user does on a page. */
export type Action =
  /**
   * Types into inputs (a login, an identifier, a user code) and submits them by `submit` (else as Enter does in the
   * last input).
   */
  | {
      kind: 'fill';
      what: 'login' | 'identifier' | 'user-code';
      fills: Fill[];
      submit?: PageControl;
    }
  /** Presses a control: a consent decision (ticking `check` first), or an interstitial's one button. */
  | {
      kind: 'press';
      what: 'consent' | 'continue';
      control: PageControl;
      decision?: 'approve' | 'deny';
      /** The other choice of a consent page (a deny that submits what it submits is no deny). */
      other?: PageControl;
      check: PageControl[];
    };

/** One input typed into: the control, what it takes, and the text. */
export interface Fill {
  control: PageControl;
  role: 'username' | 'password' | 'user-code';
  value: string;
}

/** What a reason that needs scripts tells the user to do. */
export const USE_BROWSER =
  'use the auto or browser driver (login.driver "auto", the default, or "browser" in the target config), which run ' +
  "the page's scripts";

/** Why an actuator cannot do an action as the page means it. */
export interface Refusal {
  /** What the page needs, in a few words (the auto driver's reason for the browser). */
  why: string;
  /**
   * The form driver's words for it: thrown as a PreconditionError when `fails` (a control it must press and would
   * never replace: the walk is an `error`), else the reason the walk stops on the page. Undefined: the page's own stop
   * reason.
   */
  message?: string;
  fails: boolean;
}

/** The walk reached the redirect URI: by a redirect or a navigation (GET), or a form posted there (form_post). */
export interface RedirectEnd {
  kind: 'redirect';
  url: string;
  params: Record<string, string>;
  method?: 'GET' | 'POST';
  formFields?: Record<string, string>;
  /**
   * A form_post form taken off the page by the HTTP actuator (which runs no script): the page did not submit it, and
   * whether it would have is unseen (the walk hands such a page to the browser when it may: FormPostPage).
   */
  taken?: true;
}

/** A page that holds a form to the redirect URI (form_post) and did not submit it in the time it was given. */
export interface UnsentForm {
  /** The form's action (the redirect URI) and method. */
  url: string;
  method: 'GET' | 'POST';
  /** The names of its fields (their values may carry the code: not kept here). */
  fields: string[];
  /** How long the page was watched for the submission (ms). */
  waitedMs: number;
}

/** Why the auto driver hands a form_post page to the browser. */
export const FORM_POST_PAGE =
  'a form_post page (a form to the redirect URI): whether the page itself submits it is seen only where its ' +
  'scripts and handlers run';

/** How a walk ended before it stopped on a page: at the redirect_uri, at the edge of `stayWithin`, or refused. */
export type ActuatorEnd =
  | RedirectEnd
  /** A navigation off the `stayWithin` origin, not followed; `reason` says so. */
  | { kind: 'left'; url: string; reason: string }
  /** A navigation the origin policy refused: the walk is an error (`error`, an OffOriginError). */
  | { kind: 'refused'; error: Error }
  /** The actuator gave up (over HTTP: too many requests, a redirect loop): `reason` says so. */
  | { kind: 'gave-up'; reason: string };

/** The page a walk ends on, without the walk's own lists. */
export type EndOfPage = Pick<EndPage, 'status' | 'url' | 'body' | 'headline' | 'reason'>;

/**
 * The page changed between its reading and the action: a control the walk chose is no longer shown (a single-page app
 * that re-rendered: a grant panel replaced by a "Continue" view, a form swapped by script). Nothing was done; the walk
 * reads the page again and decides anew.
 */
export class PageChanged extends Error {
  override readonly name = 'PageChanged';
}

/** How long an actuator waits for a chosen control to be shown before it takes the page for changed. */
export const SHOWN_WAIT_MS = 3_000;

/** How many times one walk reads a page again after it changed under an action, before it gives up on it. */
export const MAX_PAGE_CHANGES = 3;

export interface Actuator {
  readonly name: 'http' | 'browser';
  /** How the actuator's login-came-back message hints at the cause. */
  readonly loginHint: string;
  /** Opens the first page: the authorization URL (a GET, or a form POST of its query) or the verification URI. */
  open(url: string, method?: 'GET' | 'POST'): Promise<void>;
  /** Set once the walk ended without stopping on a page. */
  readonly end: ActuatorEnd | undefined;
  /**
   * The page shown now, read into the model. `settle` (default true): a page with nothing to act on that runs scripts
   * is given time to render (in the browser).
   */
  read(wantsUserCode: boolean, settle?: boolean): Promise<Reading>;
  /** Why `action` cannot be done here as the page means it, or undefined. */
  refuse(action: Action, reading: Reading): Refusal | undefined;
  /** Does `action` and waits for what follows (the next page, or the walk's end). */
  perform(action: Action, reading: Reading): Promise<void>;
  /** The current page, passed as a `kind` page. */
  visit(kind: PageKind): Promise<PageVisit>;
  /** The page the walk ends on. */
  endPage(reason: string): Promise<EndOfPage>;
  /** The HTTP redirects of the top-level page so far. */
  redirects(): Promise<RedirectRecord[]>;
  /** Every request a page made (the browser sees them; HTTP has none beyond its own). */
  readonly requests?: RequestRecord[];
  /** How long a page that shows nothing is given to render, in words for a reason ("" over HTTP). */
  readonly renderWait: string;
  /** Where the walk is (for an error naming the page, the element and the step): the actuator notes each page. */
  readonly position: WalkPosition;
  /** The browser: the form to the redirect URI the page shows and never submitted (read by `read`). */
  readonly unsentForm?: UnsentForm | undefined;
}
