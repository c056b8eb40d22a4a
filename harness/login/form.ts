/**
 * The form login driver (docs/login.md): HTTP only, no browser, no scripts. Follows redirects with a
 * cookie jar (tough-cookie, session.ts), reads each page (html.ts) and lets the shared page walk
 * (page.ts) say what it is: it fills the login (or identifier-first) form with the user's
 * credentials, answers consent pages by the approving (or denying) control, and stops at the
 * redirect to the redirect_uri without fetching it — or at a page it cannot act on. For a device
 * (RFC 8628 §3.3) it enters the user code at the verification URI first (or opens
 * verification_uri_complete), and ends at the page that closes the activation.
 *
 * It never presses what it cannot press as the page means it: a control that needs a script, or
 * a deny button whose submission would be the same as approving, ends the walk as an `error` that
 * names the browser driver.
 */
import { PreconditionError } from '../failures.ts';
import type { HttpClient, HttpResponse } from '../http.ts';
import { Tab } from '../navigation.ts';
import {
  type AuthorizeOptions,
  type AuthorizeOutcome,
  type DeviceActivation,
  type DeviceActivationOutcome,
  type LoginDriver,
  type PageKind,
  type PageVisit,
  type RedirectRecord,
  isRedirectTo,
  responseParams,
} from './driver.ts';
import { formValues, readPage } from './html.ts';
import {
  type PageClass,
  type PageControl,
  type PageModel,
  classify,
  describeError,
  reads,
  whyNotSubmittable,
} from './page.ts';
import { type LoginSession, sessionFor, walkOn } from './session.ts';
import { WalkPosition, walkFailure } from './walk-errors.ts';

/** What the walk is about to do on a page of class `cls` (for an error that names the step and the element). */
function stepOn(position: WalkPosition, cls: PageClass, decision: 'approve' | 'deny'): void {
  const control = (c: PageControl | undefined) =>
    c ? `the ${c.tag === 'a' ? 'link' : c.tag} "${shown(c)}"` : undefined;
  if (cls.kind === 'login') position.at('submitting the login form', control(cls.submit) ?? control(cls.password));
  else if (cls.kind === 'identifier') position.at('submitting the username', control(cls.submit));
  else if (cls.kind === 'user-code') position.at('submitting the user code', control(cls.submit));
  else if (cls.kind === 'consent')
    position.at(
      `${decision === 'approve' ? 'approving' : 'denying'} on the consent page`,
      control(decision === 'approve' ? cls.approve : cls.deny),
    );
  else if (cls.kind === 'continue') position.at('going on from an interstitial page', control(cls.submit));
  else position.at('reading the page');
}

const MAX_STEPS = 15;

export interface FormLoginOptions {
  http: HttpClient;
  username: string;
  password: string;
  usernameField?: string;
  passwordField?: string;
  /** The run's shared IdP session (AuthorizeOptions.session "shared"). */
  sharedSession?: LoginSession;
}

interface Step {
  method: 'GET' | 'POST';
  url: string;
  form?: [string, string][];
}

/**
 * A user agent without scripts: one cookie jar, redirects not followed, every request recorded and
 * sent as the browser's navigation it stands for (a Tab, harness/navigation.ts).
 */
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

/**
 * Pressing `control` as a browser would: submitting its form (GET puts the values in the query), or following a link.
 */
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
  if ((control.formMethod ?? form.method) === 'POST') return { method: 'POST', url, form: values };
  const u = new URL(url);
  u.search = new URLSearchParams(values).toString();
  return { method: 'GET', url: u.href };
}

/** The authorization request: a GET of the URL, or a form POST of its query to the URL without it. */
function firstStep(authorizationUrl: string, method: AuthorizeOptions['method'] = 'GET'): Step {
  if (method === 'GET') return { method: 'GET', url: authorizationUrl };
  const url = new URL(authorizationUrl);
  const form = [...url.searchParams];
  url.search = '';
  return { method: 'POST', url: url.href, form };
}

/** Submitting the form of `input` without a button (as Enter does): its values, no submitter. */
function submitWithout(model: PageModel, input: PageControl, overrides: Record<string, string>): Step {
  const form = model.forms[input.form!]!;
  const values = formValues(model, input.form!, overrides);
  const url = new URL(form.action || model.url, model.url).href;
  if (form.method === 'POST') return { method: 'POST', url, form: values };
  const u = new URL(url);
  u.search = new URLSearchParams(values).toString();
  return { method: 'GET', url: u.href };
}

function headersOf(res: HttpResponse): Record<string, string> {
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return headers;
}

const USE_BROWSER =
  'use the browser driver (login.driver "browser" in the target config), which runs the page\'s scripts';
const LOGIN_CAME_BACK =
  'the login form came back after the credentials were submitted (wrong user, or wrong usernameField/passwordField?)';

function shown(c: PageControl): string {
  return reads(c).label || c.name || c.tag;
}

/** Why a page without anything to act on stopped the walk. */
function stopReason(model: PageModel, cls: PageClass, decision: 'approve' | 'deny'): string {
  const cut = model.truncated ? ` (${model.truncated})` : '';
  if (cls.kind === 'error') return `${describeError(model, cls.alert)}${cut}`;
  if (cls.kind === 'consent') {
    return decision === 'deny'
      ? `a page that asks for access but offers no deny, cancel or abort control (HTTP ${model.status})${cut}`
      : `a page that asks for access but offers no approving control (HTTP ${model.status})${cut}`;
  }
  if (cls.kind === 'other' && !cls.controls && model.scripts > 0) {
    return (
      `a page without a form or button that runs scripts (HTTP ${model.status}): a page rendered by script ` +
      `cannot be used without running it; ${USE_BROWSER}${cut}`
    );
  }
  const what =
    model.forms.length || (cls.kind === 'other' && cls.controls)
      ? 'a page with controls the driver does not recognize as login or consent'
      : 'a page without a form';
  return `${what} (HTTP ${model.status})${cut}`;
}

/** What one walk through an IdP's pages has done so far. */
class Walk {
  readonly pages: PageKind[] = [];
  readonly visits: PageVisit[] = [];
  logins = 0;
  identified = 0;
  consentShown = false;
  page: { model: PageModel; res: HttpResponse } | undefined;

  /** The driver acts on the current page as a `kind` page. */
  passed(kind: PageKind): void {
    this.pages.push(kind);
    if (kind === 'consent') this.consentShown = true;
    if (this.page)
      this.visits.push({
        kind,
        url: this.page.model.url,
        status: this.page.res.status,
        headers: headersOf(this.page.res),
        body: this.page.res.text,
      });
  }
}

export class FormLoginDriver implements LoginDriver {
  readonly name = 'form';
  constructor(private readonly o: FormLoginOptions) {}

  #classify(model: PageModel, wantsUserCode = false): PageClass {
    return classify(model, {
      wantsUserCode,
      ...(this.o.usernameField ? { usernameField: this.o.usernameField } : {}),
      ...(this.o.passwordField ? { passwordField: this.o.passwordField } : {}),
    });
  }

  /** A control the driver must press, or why it cannot: it never presses something else in its place. */
  #pressable(model: PageModel, control: PageControl, what: string, other?: PageControl): void {
    const why = whyNotSubmittable(control, other, model);
    if (why) {
      throw new PreconditionError(
        `the ${what} control "${shown(control)}" on ${model.url.split('?')[0]} (HTTP ${model.status}) is ${why}: ` +
          `the form driver cannot press it as the page means ` +
          `it${what === 'deny' ? ' (and would never approve instead)' : ''}; ${USE_BROWSER}`,
      );
    }
  }

  /** The step for a login, identifier or consent page (or an interstitial); a string is why the walk stops. */
  #act(cls: PageClass, model: PageModel, walk: Walk, decision: 'approve' | 'deny'): Step | string | undefined {
    if (cls.kind === 'login') {
      if (walk.logins++ > 0) return LOGIN_CAME_BACK;
      if (cls.password.form === undefined)
        return `a login page whose password input is in no form: it is submitted by script; ${USE_BROWSER}`;
      walk.passed('login');
      const values: Record<string, string> = {
        [cls.password.name || this.o.passwordField || 'password']: this.o.password,
      };
      if (cls.username) values[cls.username.name || this.o.usernameField || 'username'] = this.o.username;
      if (!cls.submit) return submitWithout(model, cls.password, values);
      this.#pressable(model, cls.submit, 'sign-in');
      return press(model, cls.submit, values);
    }
    if (cls.kind === 'identifier') {
      if (walk.identified++ > 0)
        return 'the identifier (username) page came back after the username was submitted (wrong user?)';
      if (cls.username.form === undefined)
        return `an identifier-first login page whose input is in no form: it is submitted by script; ${USE_BROWSER}`;
      walk.passed('login');
      const values = { [cls.username.name || this.o.usernameField || 'username']: this.o.username };
      if (!cls.submit) return submitWithout(model, cls.username, values);
      this.#pressable(model, cls.submit, 'continue');
      return press(model, cls.submit, values);
    }
    if (cls.kind === 'consent') {
      const control = decision === 'approve' ? cls.approve : cls.deny;
      if (!control) return undefined;
      this.#pressable(model, control, decision, decision === 'approve' ? cls.deny : cls.approve);
      walk.passed('consent');
      // An approving user ticks what the page asks to be ticked (per-scope consent); a denying one ticks nothing.
      return press(model, control, {}, decision === 'approve' ? cls.choices : []);
    }
    if (cls.kind === 'continue') {
      if (whyNotSubmittable(cls.submit)) return undefined;
      return press(model, cls.submit);
    }
    return undefined;
  }

  async authorize(
    authorizationUrl: string,
    stopAt: string[],
    options: AuthorizeOptions = {},
  ): Promise<AuthorizeOutcome> {
    return this.#within(
      options.session,
      'authorization request',
      (agent, position) => this.#authorize(agent, position, authorizationUrl, stopAt, options),
      stopAt[0],
    );
  }

  /**
   * A walk on its own copy of the session it starts from; the session takes over the copy's cookies when the walk ends.
   */
  async #within<T extends { pages: PageKind[] }>(
    choice: AuthorizeOptions['session'],
    first: string,
    walk: (agent: Agent, position: WalkPosition) => Promise<T>,
    opener?: string,
  ): Promise<T> {
    const session = sessionFor(choice, this.o.sharedSession);
    return walkOn(session, async () => {
      const own = session.fork();
      const position = new WalkPosition();
      position.at(`opening the ${first}`);
      try {
        return await walk(new Agent(this.o.http, own, first, opener), position);
      } catch (error) {
        throw walkFailure('form', position, error);
      } finally {
        session.adopt(own);
      }
    });
  }

  async #authorize(
    agent: Agent,
    position: WalkPosition,
    authorizationUrl: string,
    stopAt: string[],
    options: AuthorizeOptions,
  ): Promise<AuthorizeOutcome> {
    const walk = new Walk();
    const { pages, visits } = walk;
    const redirects: RedirectRecord[] = [];
    const decision = options.consent ?? 'approve';
    let request: Step = firstStep(authorizationUrl, options.method);
    for (let step = 0; step < MAX_STEPS; step++) {
      const res = await agent.send(request);
      const redirect = redirectOf(res, request.url);
      if (redirect) {
        redirects.push({ method: request.method, url: request.url, status: res.status, location: redirect });
        if (isRedirectTo(redirect, stopAt))
          return {
            kind: 'redirect',
            url: redirect,
            params: responseParams(redirect),
            pages,
            visits,
            consentShown: walk.consentShown,
            redirects,
          };
        if (options.stayWithin && new URL(redirect).origin !== new URL(options.stayWithin).origin) {
          const model = readPage(res.text, request.url, res.status);
          return {
            kind: 'page',
            status: res.status,
            url: request.url,
            body: res.text,
            headline: model.headline,
            consentShown: walk.consentShown,
            reason: `a redirect to ${redirect}, outside ${new URL(options.stayWithin).origin}, not followed`,
            location: redirect,
            pages,
            visits,
            redirects,
          };
        }
        request = { method: 'GET', url: redirect };
        continue;
      }
      const model = readPage(res.text, request.url, res.status);
      walk.page = { model, res };
      position.onPage(request.url, model.headline);
      const stop = (reason: string, cls?: PageClass): AuthorizeOutcome => ({
        kind: 'page',
        status: res.status,
        url: request.url,
        body: res.text,
        headline: model.headline,
        reason,
        ...(cls?.kind === 'error' ? { errorPage: true } : {}),
        pages,
        visits,
        redirects,
        consentShown: walk.consentShown,
      });
      // form_post (OAuth 2.0 Form Post Response Mode): a form that posts to the redirect_uri.
      const formPost = model.forms.findIndex((f) =>
        isRedirectTo(new URL(f.action || request.url, request.url).href, stopAt),
      );
      if (formPost >= 0) {
        const url = new URL(model.forms[formPost]!.action || request.url, request.url).href;
        return {
          kind: 'redirect',
          url,
          params: Object.fromEntries(formValues(model, formPost)),
          pages,
          visits,
          consentShown: walk.consentShown,
          redirects,
        };
      }
      if (options.interact === false && model.forms.length > 0)
        return stop(`a page the user would have to act on (HTTP ${res.status}); this request asked for no interaction`);
      const cls = this.#classify(model);
      stepOn(position, cls, decision);
      const next = this.#act(cls, model, walk, decision);
      if (typeof next === 'string') return stop(next);
      if (next) {
        request = next;
        continue;
      }
      return stop(stopReason(model, cls, decision), cls);
    }
    return {
      kind: 'page',
      status: 0,
      url: request.url,
      body: '',
      headline: '',
      reason: `no redirect to the redirect_uri within ${MAX_STEPS} steps (a redirect loop?)`,
      pages,
      visits,
      consentShown: walk.consentShown,
    };
  }

  /**
   * Opens verification_uri (or verification_uri_complete, when given and not declined), types the
   * user code into the form that asks for it, logs in when the login form appears, and submits
   * the decision (approve, or deny/cancel/abort) wherever it is asked — before or after the login,
   * on one page or two. Ends at the first page with nothing left to do.
   */
  async activateDevice(activation: DeviceActivation): Promise<DeviceActivationOutcome> {
    return this.#within(activation.session, 'device activation page', (agent, position) =>
      this.#activate(agent, position, activation),
    );
  }

  async #activate(
    agent: Agent,
    position: WalkPosition,
    activation: DeviceActivation,
  ): Promise<DeviceActivationOutcome> {
    const complete =
      activation.verificationUriComplete && activation.useComplete !== false
        ? activation.verificationUriComplete
        : undefined;
    const walk = new Walk();
    const { pages, visits } = walk;
    let request: Step = { method: 'GET', url: complete ?? activation.verificationUri };
    let codeSent = false;
    /** The code is in: typed and sent, or carried by verification_uri_complete. */
    let codeIn = complete !== undefined;
    let decided = false;
    for (let step = 0; step < MAX_STEPS; step++) {
      const res = await agent.send(request);
      const redirect = redirectOf(res, request.url);
      if (redirect) {
        request = { method: 'GET', url: redirect };
        continue;
      }
      const model = readPage(res.text, request.url, res.status);
      walk.page = { model, res };
      position.onPage(request.url, model.headline);
      const end = (reason: string, done = decided): DeviceActivationOutcome => ({
        decided: done,
        status: res.status,
        url: request.url,
        body: res.text,
        headline: model.headline,
        reason,
        pages,
        visits,
        consentShown: walk.consentShown,
      });
      const cls = this.#classify(model, !codeSent);
      stepOn(position, cls, activation.decision);
      if (cls.kind === 'user-code') {
        if (codeSent || decided) {
          return end(
            decided
              ? `the user-code form came back after the decision (HTTP ${res.status}): the activation is over`
              : `the user-code form came back after the code was submitted (HTTP ${res.status}): the code was ` +
                  `not accepted?`,
          );
        }
        if (cls.input.form === undefined)
          return end(`a user-code input that is in no form: it is submitted by script; ${USE_BROWSER}`);
        codeSent = true;
        codeIn = true;
        walk.passed('user-code');
        const values = { [cls.input.name || 'user_code']: activation.userCode };
        if (!cls.submit) request = submitWithout(model, cls.input, values);
        else {
          this.#pressable(model, cls.submit, 'user-code submit');
          request = press(model, cls.submit, values);
        }
        continue;
      }
      // A decision counts only once the code is in: before it, a "Cancel" would cancel nothing.
      if (cls.kind === 'consent' && !codeIn)
        return end(`a page that asks for a decision before the user code was entered (HTTP ${res.status})`);
      const next = this.#act(cls, model, walk, activation.decision);
      if (typeof next === 'string') return end(next);
      if (next) {
        decided ||= cls.kind === 'consent';
        request = next;
        continue;
      }
      if (!codeIn) {
        const why =
          cls.kind === 'other' && !cls.controls && model.scripts > 0
            ? `no user-code input at the verification URI, and the page runs scripts (HTTP ${res.status}): an input ` +
              `rendered by script needs the browser; ${USE_BROWSER}`
            : `no form with a text input for the user code at the verification URI (HTTP ${res.status})`;
        return end(why);
      }
      if (cls.kind === 'error') return end(`the activation ended on an error page (HTTP ${res.status})`);
      if (cls.kind === 'other' && !cls.controls) {
        // The end of the activation. Approving by signing in counts: the IdP asked nothing more.
        const approvedBySignIn = activation.decision === 'approve' && walk.logins > 0;
        return end(`the activation ended on a page without a form (HTTP ${res.status})`, decided || approvedBySignIn);
      }
      return end(stopReason(model, cls, activation.decision));
    }
    return {
      decided,
      status: 0,
      url: request.url,
      body: '',
      headline: '',
      reason: `the activation did not end within ${MAX_STEPS} steps (a redirect loop?)`,
      pages,
      visits,
      consentShown: walk.consentShown,
    };
  }
}
