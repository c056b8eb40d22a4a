/**
 * Acting on pages over HTTP, without a browser and without scripts (the form driver, and the auto driver until a page
 * needs more): every request through the harness's HTTP client (http/client.ts: recorded, held to the origins and
 * limits) and sent as the browser navigation it stands for (navigation.ts), cookies kept in the walk's session
 * (tough-cookie, session.ts), redirects followed one by one — the redirect to the redirect_uri caught, never fetched —
 * each page read by parse5 (html.ts) into the page model. Pressing a control submits its form as a browser would
 * (HTML's form data set); a control that works only by script, or a deny that would submit what approving submits,
 * is refused with the reason, never replaced by something else.
 */
import type { HttpClient, HttpResponse } from '../http/client.ts';
import { Tab } from '../http/navigation.ts';
import {
  type Action,
  type ActuatorEnd,
  type Actuator,
  type EndOfPage,
  type Reading,
  type Refusal,
  USE_BROWSER,
} from './actuator.ts';
import { type PageKind, type PageVisit, type RedirectRecord, isRedirectTo, responseParams } from './driver.ts';
import { formValues } from './form-data.ts';
import { readPage } from './html.ts';
import { type PageControl, type PageModel, classify, whyNotSubmittable } from './page.ts';
import type { LoginSession } from './session.ts';
import type { WalkPosition } from './walk-errors.ts';
import { shown } from './walk-record.ts';

/** The most requests (redirects included) one walk sends. */
export const MAX_REQUESTS = 15;

/** One request a user agent sends: a navigation, or a form submitted. */
export interface Step {
  method: 'GET' | 'POST';
  url: string;
  form?: [string, string][];
  /** Whether the submission carries the user's credentials (a filled password input of the form). */
  credentials?: boolean;
}

/** A page as the HTTP actuator fetched it: what the browser is given when a walk goes on there (auto.ts). */
export interface FetchedPage {
  url: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface HttpActuatorOptions {
  http: HttpClient;
  /** The walk's own copy of its session: its cookie jar. */
  session: LoginSession;
  /** The label of the first request ("authorization request", "device activation page"). */
  first: string;
  /** The page that opened the first request (the client's redirect URI): a POST's Origin and Referer. */
  opener?: string;
  stopAt: readonly string[];
  stayWithin?: string;
  usernameField?: string;
  passwordField?: string;
  position: WalkPosition;
  /** The reason of a walk that sent MAX_REQUESTS requests without an end. */
  giveUp: string;
}

/** A user agent without scripts: one cookie jar, redirects not followed, every request recorded. */
class Agent {
  #count = 0;
  readonly #tab: Tab;
  constructor(
    private readonly http: HttpClient,
    private readonly session: LoginSession,
    private readonly first: string,
    opener?: string,
  ) {
    this.#tab = new Tab(opener);
  }

  get sent(): number {
    return this.#count;
  }

  async send(step: Step): Promise<HttpResponse> {
    const headers: Record<string, string> = {};
    const cookie = this.session.cookieHeader(step.url);
    if (cookie) headers.cookie = cookie;
    if (step.form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const n = this.#count++;
    const navigation = this.#tab.next(step.method, step.url);
    const res = await this.http.send({
      method: step.method,
      url: step.url,
      headers,
      navigation,
      ...(step.form ? { body: new URLSearchParams(step.form).toString() } : {}),
      label: n === 0 ? this.first : `login step ${n}`,
    });
    this.session.store(step.url, res.headers.getSetCookie());
    this.#tab.answered(step.url, navigation, redirectOf(res, step.url), res.header('referrer-policy'));
    return res;
  }
}

/** Where a response redirects to (absolute), if it is a redirect. */
function redirectOf(res: HttpResponse, from: string): string | undefined {
  const location = res.header('location');
  return res.status >= 300 && res.status < 400 && location ? new URL(location, from).href : undefined;
}

/** Whether the values of form `index` include a filled password input: the submission carries credentials. */
function carriesCredentials(model: PageModel, index: number, values: [string, string][]): boolean {
  const passwords = new Set(
    model.controls.filter((c) => c.form === index && c.type === 'password' && c.name).map((c) => c.name),
  );
  return values.some(([name, value]) => passwords.has(name) && value !== '');
}

/** A form's submission: GET puts the values in the query. */
function submission(url: string, method: 'GET' | 'POST', values: [string, string][], credentials = false): Step {
  if (method === 'POST') return { method: 'POST', url, form: values, credentials };
  const u = new URL(url);
  u.search = new URLSearchParams(values).toString();
  return { method: 'GET', url: u.href };
}

/** Pressing `control` as a browser would: submitting its form, or following a link. */
function press(
  model: PageModel,
  control: PageControl,
  overrides: Record<string, string> = {},
  check: PageControl[] = [],
): Step {
  if (control.tag === 'a') return { method: 'GET', url: new URL(control.value, model.url).href };
  const form = model.forms[control.form!]!;
  const values = formValues(model, control.form!, overrides, control, check);
  const url = new URL(control.formAction || form.action || model.url, model.url).href;
  const credentials = carriesCredentials(model, control.form!, values);
  return submission(url, control.formMethod ?? form.method, values, credentials);
}

/** Submitting the form of `input` without a button (as Enter does): its values, no submitter. */
function submitWithout(model: PageModel, input: PageControl, overrides: Record<string, string>): Step {
  const form = model.forms[input.form!]!;
  const values = formValues(model, input.form!, overrides);
  const credentials = carriesCredentials(model, input.form!, values);
  return submission(new URL(form.action || model.url, model.url).href, form.method, values, credentials);
}

/** The authorization request: a GET of the URL, or a form POST of its query to the URL without it. */
function firstStep(url: string, method: 'GET' | 'POST' = 'GET'): Step {
  if (method === 'GET') return { method: 'GET', url };
  const u = new URL(url);
  const form = [...u.searchParams];
  u.search = '';
  return { method: 'POST', url: u.href, form };
}

/** The index of the page's form whose action is a redirect URI (a form_post response), or -1. */
export function formToRedirect(model: PageModel, stopAt: readonly string[]): number {
  return model.forms.findIndex((f) => {
    try {
      return isRedirectTo(new URL(f.action || model.url, model.url).href, stopAt);
    } catch {
      return false;
    }
  });
}

export function headersOf(res: HttpResponse): Record<string, string> {
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return headers;
}

/** What the form driver calls the submit control of each kind of fill. */
const SUBMIT_NAME = { login: 'sign-in', identifier: 'continue', 'user-code': 'user-code submit' } as const;
/** A fill's input in no form: submitted by script. */
const NO_FORM = {
  login: 'a login page whose password input is in no form',
  identifier: 'an identifier-first login page whose input is in no form',
  'user-code': 'a user-code input that is in no form',
} as const;

export class HttpActuator implements Actuator {
  readonly name = 'http';
  readonly loginHint = 'wrong user, or wrong usernameField/passwordField?';
  readonly renderWait = '';
  readonly #agent: Agent;
  readonly #redirects: RedirectRecord[] = [];
  #page: { url: string; res: HttpResponse; model?: PageModel } | undefined;
  #last = '';
  #end: ActuatorEnd | undefined;

  constructor(private readonly o: HttpActuatorOptions) {
    this.#agent = new Agent(o.http, o.session, o.first, o.opener);
  }

  get position(): WalkPosition {
    return this.o.position;
  }

  get end(): ActuatorEnd | undefined {
    return this.#end;
  }

  /** The page shown now, as fetched (for the browser to go on from). */
  get page(): FetchedPage | undefined {
    const page = this.#page;
    return page && { url: page.url, status: page.res.status, headers: headersOf(page.res), body: page.res.text };
  }

  open(url: string, method: 'GET' | 'POST' = 'GET'): Promise<void> {
    return this.#go(firstStep(url, method));
  }

  /** Sends `step` and follows its redirects to a page, the redirect_uri, the edge of stayWithin, or MAX_REQUESTS. */
  async #go(step: Step): Promise<void> {
    let request = step;
    for (;;) {
      if (this.#agent.sent >= MAX_REQUESTS) {
        this.#end = { kind: 'gave-up', reason: this.o.giveUp };
        return;
      }
      this.#last = request.url;
      const res = await this.#agent.send(request);
      const redirect = redirectOf(res, request.url);
      if (!redirect) {
        this.#page = { url: request.url, res };
        return;
      }
      this.#redirects.push({
        method: request.method,
        url: request.url,
        status: res.status,
        location: redirect,
        ...(request.method === 'POST' ? { credentials: request.credentials === true } : {}),
      });
      if (isRedirectTo(redirect, this.o.stopAt)) {
        this.#end = { kind: 'redirect', url: redirect, params: responseParams(redirect), method: 'GET' };
        return;
      }
      const within = this.o.stayWithin && new URL(this.o.stayWithin).origin;
      if (within && new URL(redirect).origin !== within) {
        this.#page = { url: request.url, res };
        this.#end = {
          kind: 'left',
          url: redirect,
          reason: `a redirect to ${redirect}, outside ${within}, not followed`,
        };
        return;
      }
      request = { method: 'GET', url: redirect };
    }
  }

  async read(wantsUserCode: boolean): Promise<Reading> {
    const page = this.#page!;
    this.o.position.at('reading the page');
    page.model ??= readPage(page.res.text, page.url, page.res.status);
    const { model } = page;
    this.o.position.onPage(page.url, model.headline);
    // form_post (OAuth 2.0 Form Post Response Mode): a form that posts to the redirect_uri, taken off the page (no
    // script runs here, so whether the page submits it is unseen: `taken`; the walk hands it to the browser if it may).
    const formPost = formToRedirect(model, this.o.stopAt);
    if (formPost >= 0) {
      const { action, method } = model.forms[formPost]!;
      const url = new URL(action || page.url, page.url);
      const fields = Object.fromEntries(formValues(model, formPost));
      // A GET form sends its fields as the query (HTML's form submission, which replaces the action's query).
      if (method === 'GET') {
        url.search = new URLSearchParams(fields).toString();
        this.#end = { kind: 'redirect', url: url.href, params: responseParams(url.href), method, taken: true };
      } else
        this.#end = {
          kind: 'redirect',
          url: url.href,
          params: { ...responseParams(url.href), ...fields },
          method,
          formFields: fields,
          taken: true,
        };
    }
    const fields = {
      ...(this.o.usernameField ? { usernameField: this.o.usernameField } : {}),
      ...(this.o.passwordField ? { passwordField: this.o.passwordField } : {}),
    };
    return { model, cls: classify(model, { wantsUserCode, ...fields }), snapshot: '' };
  }

  refuse(action: Action, { model }: Reading): Refusal | undefined {
    const cannot = (control: PageControl, what: string, why: string, deny = false): Refusal => ({
      why: `the ${what} control "${shown(control)}" is ${why}`,
      message:
        `the ${what} control "${shown(control)}" on ${model.url.split('?')[0]} (HTTP ${model.status}) is ${why}: ` +
        `the form driver cannot press it as the page means it${deny ? ' (and would never approve instead)' : ''}; ` +
        USE_BROWSER,
      fails: true,
    });
    if (action.kind === 'fill') {
      const input = action.fills.at(-1)!.control;
      if (input.form === undefined)
        return {
          why: `${NO_FORM[action.what]}`,
          message: `${NO_FORM[action.what]}: it is submitted by script; ${USE_BROWSER}`,
          fails: false,
        };
      const why = action.submit && whyNotSubmittable(action.submit);
      return why ? cannot(action.submit!, SUBMIT_NAME[action.what], why) : undefined;
    }
    if (action.what === 'continue') {
      const why = whyNotSubmittable(action.control);
      return why ? { why: `its one button "${shown(action.control)}" is ${why}`, fails: false } : undefined;
    }
    const why = whyNotSubmittable(action.control, action.other, model);
    return why ? cannot(action.control, action.decision ?? 'approve', why, action.decision === 'deny') : undefined;
  }

  async perform(action: Action, { model }: Reading): Promise<void> {
    if (action.kind === 'press') return this.#go(press(model, action.control, {}, action.check));
    const values: Record<string, string> = {};
    for (const { control, role, value } of action.fills) {
      const fallback =
        role === 'password'
          ? (this.o.passwordField ?? 'password')
          : role === 'username'
            ? (this.o.usernameField ?? 'username')
            : 'user_code';
      values[control.name || fallback] = value;
    }
    const last = action.fills.at(-1)!.control;
    return this.#go(action.submit ? press(model, action.submit, values) : submitWithout(model, last, values));
  }

  async visit(kind: PageKind): Promise<PageVisit> {
    const { url, res } = this.#page!;
    return { kind, url, status: res.status, headers: headersOf(res), body: res.text };
  }

  async endPage(reason: string): Promise<EndOfPage> {
    const page = this.#page;
    if (!page || this.#end?.kind === 'gave-up') return { status: 0, url: this.#last, body: '', headline: '', reason };
    const model = page.model ?? readPage(page.res.text, page.url, page.res.status);
    return { status: page.res.status, url: page.url, body: page.res.text, headline: model.headline, reason };
  }

  async redirects(): Promise<RedirectRecord[]> {
    return this.#redirects;
  }
}
