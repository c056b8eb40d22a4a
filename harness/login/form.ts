/**
 * The form login driver (DESIGN §4): HTTP only, no browser. Follows redirects with a cookie jar,
 * submits the login form (the one with a password input) with the user's credentials, submits
 * consent forms by their approving (or denying) button, and stops at the redirect to the
 * redirect_uri without fetching it — or at an error page. For a device (RFC 8628 §3.3) it
 * enters the user code at the verification URI first, and ends at the page that closes the
 * activation.
 */
import type { HttpClient, HttpResponse } from '../http.ts';
import {
  type AuthorizeOptions, type AuthorizeOutcome, type DeviceActivation, type DeviceActivationOutcome, type LoginDriver, type PageKind,
  type PageVisit, type RedirectRecord, isRedirectTo, responseParams,
} from './driver.ts';
import { type FormField, type HtmlForm, formValues, isSubmit, pageHeadline, parseForms } from './html.ts';
import { DENY, TEXT_INPUT_TYPES, USER_CODE_NAME, gives } from './words.ts';

const MAX_STEPS = 15;

export interface FormLoginOptions {
  http: HttpClient;
  username: string;
  password: string;
  usernameField?: string;
  passwordField?: string;
}

interface Cookie { name: string; value: string; host: string; path: string }

/** A minimal cookie jar: host-only cookies, path prefix matching, Max-Age/Expires deletion. */
export class CookieJar {
  readonly #cookies = new Map<string, Cookie>();

  store(url: string, setCookies: string[]): void {
    const u = new URL(url);
    for (const line of setCookies) {
      const [pair = '', ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      let path = u.pathname.replace(/\/[^/]*$/, '') || '/';
      let expired = false;
      for (const attr of attrs) {
        const [k = '', v = ''] = attr.split('=').map((s) => s.trim());
        if (/^path$/i.test(k) && v.startsWith('/')) path = v;
        if (/^max-age$/i.test(k) && Number(v) <= 0) expired = true;
        if (/^expires$/i.test(k) && Date.parse(v) < Date.now()) expired = true;
      }
      const key = `${u.host} ${path} ${name}`;
      if (expired) this.#cookies.delete(key);
      else this.#cookies.set(key, { name, value, host: u.host, path });
    }
  }

  header(url: string): string | undefined {
    const u = new URL(url);
    const matching = [...this.#cookies.values()].filter((c) => c.host === u.host
      && (u.pathname === c.path || u.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`)));
    return matching.length ? matching.map((c) => `${c.name}=${c.value}`).join('; ') : undefined;
  }
}

function decisionButton(form: HtmlForm, decision: 'approve' | 'deny'): FormField | undefined {
  const submits = form.fields.filter(isSubmit);
  return submits.find((f) => gives(decision, `${f.name ?? ''} ${f.value} ${f.text}`, `${f.value} ${f.text}`));
}

/** The first form with a decision control, and the control. */
function findDecision(forms: HtmlForm[], decision: 'approve' | 'deny'): [HtmlForm, FormField] | undefined {
  for (const form of forms) {
    const button = decisionButton(form, decision);
    if (button) return [form, button];
  }
  return undefined;
}

/**
 * The input a user types a device's user code into (RFC 8628 §3.3): a visible text input named
 * like a code, or the only text input of a form without a password.
 */
function userCodeInput(form: HtmlForm): FormField | undefined {
  const texts = form.fields.filter((f) => f.tag === 'input' && f.name && TEXT_INPUT_TYPES.has(f.type));
  const named = texts.find((f) => USER_CODE_NAME.test(f.name!));
  if (named) return named;
  return texts.length === 1 && !form.fields.some((f) => f.type === 'password') ? texts[0] : undefined;
}

interface Step { method: 'GET' | 'POST'; url: string; form?: [string, string][] }

/** A user agent without scripts: one cookie jar, redirects not followed, every request recorded. */
class Session {
  readonly #jar = new CookieJar();
  #count = 0;
  constructor(private readonly http: HttpClient, private readonly first: string) {}

  async send(step: Step): Promise<HttpResponse> {
    const headers: Record<string, string> = { accept: 'text/html,application/xhtml+xml' };
    const cookie = this.#jar.header(step.url);
    if (cookie) headers.cookie = cookie;
    if (step.form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const n = this.#count++;
    const res = await this.http.send({
      method: step.method,
      url: step.url,
      headers,
      ...(step.form ? { body: new URLSearchParams(step.form).toString() } : {}),
      label: n === 0 ? this.first : `login step ${n}`,
    });
    this.#jar.store(step.url, res.headers.getSetCookie());
    return res;
  }
}

/** Where a response redirects to (absolute), if it is a redirect. */
function redirectOf(res: HttpResponse, from: string): string | undefined {
  const location = res.header('location');
  return res.status >= 300 && res.status < 400 && location ? new URL(location, from).href : undefined;
}

/** Submitting `form` with `values`, as a browser would (GET puts them in the query). */
function submission(form: HtmlForm, pageUrl: string, values: [string, string][]): Step {
  const url = new URL(form.action || pageUrl, pageUrl).href;
  if (form.method === 'POST') return { method: 'POST', url, form: values };
  const u = new URL(url);
  u.search = new URLSearchParams(values).toString();
  return { method: 'GET', url: u.href };
}

/** What a walk through an IdP's pages has done so far. */
interface Walk {
  pages: PageKind[];
  /** The same pages with their responses' headers (e.g. for the framing check, RFC 9700 §4.16). */
  visits: PageVisit[];
  logins: number;
  /** The page being read now. */
  page?: { url: string; res: HttpResponse };
}

function newWalk(): Walk {
  return { pages: [], visits: [], logins: 0 };
}

/** The driver acts on the current page as a `kind` page. */
function passed(walk: Walk, kind: PageKind): void {
  walk.pages.push(kind);
  if (walk.page) walk.visits.push({ kind, url: walk.page.url, status: walk.page.res.status, headers: headersOf(walk.page.res), body: walk.page.res.text });
}

function headersOf(res: HttpResponse): Record<string, string> {
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => { headers[name] = value; });
  return headers;
}

const LOGIN_CAME_BACK = 'the login form came back after the credentials were submitted (wrong user, or wrong usernameField/passwordField?)';

/** Clicking the button that approves or denies, on a consent (or device confirmation) page. */
function decide(forms: HtmlForm[], pageUrl: string, decision: 'approve' | 'deny', walk: Walk): Step | undefined {
  const found = findDecision(forms, decision);
  if (!found) return undefined;
  passed(walk, 'consent');
  return submission(found[0], pageUrl, formValues(found[0], {}, found[1]));
}

export class FormLoginDriver implements LoginDriver {
  readonly name = 'form';
  constructor(private readonly o: FormLoginOptions) {}

  /** Submitting the login form (the one with a password input) with the user's credentials, once. */
  #login(forms: HtmlForm[], pageUrl: string, walk: Walk): Step | typeof LOGIN_CAME_BACK | undefined {
    const passwordField = this.o.passwordField ?? 'password';
    const form = forms.find((f) => f.fields.some((x) => x.type === 'password' || x.name === passwordField));
    if (!form) return undefined;
    if (walk.logins++ > 0) return LOGIN_CAME_BACK;
    passed(walk, 'login');
    const values = { [this.o.usernameField ?? 'username']: this.o.username, [passwordField]: this.o.password };
    return submission(form, pageUrl, formValues(form, values, form.fields.find(isSubmit)));
  }

  async authorize(authorizationUrl: string, stopAt: string[], options: AuthorizeOptions = {}): Promise<AuthorizeOutcome> {
    const session = new Session(this.o.http, 'authorization request');
    const walk = newWalk();
    const { pages, visits } = walk;
    const redirects: RedirectRecord[] = [];
    let request: Step = { method: 'GET', url: authorizationUrl };
    for (let step = 0; step < MAX_STEPS; step++) {
      const res = await session.send(request);
      const redirect = redirectOf(res, request.url);
      if (redirect) {
        redirects.push({ method: request.method, url: request.url, status: res.status, location: redirect });
        if (isRedirectTo(redirect, stopAt)) return { kind: 'redirect', url: redirect, params: responseParams(redirect), pages, visits, redirects };
        if (options.stayWithin && new URL(redirect).origin !== new URL(options.stayWithin).origin) {
          return {
            kind: 'page', status: res.status, url: request.url, body: res.text, headline: pageHeadline(res.text),
            reason: `a redirect to ${redirect}, outside ${new URL(options.stayWithin).origin}, not followed`, location: redirect, pages, visits, redirects,
          };
        }
        request = { method: 'GET', url: redirect };
        continue;
      }
      const stop = (reason: string): AuthorizeOutcome => ({
        kind: 'page', status: res.status, url: request.url, body: res.text, headline: pageHeadline(res.text), reason, pages, visits, redirects,
      });
      walk.page = { url: request.url, res };
      const forms = parseForms(res.text);
      const action = (f: HtmlForm) => new URL(f.action || request.url, request.url).href;
      const formPost = forms.find((f) => isRedirectTo(action(f), stopAt));
      if (formPost) {
        const params = Object.fromEntries(formValues(formPost));
        return { kind: 'redirect', url: action(formPost), params, pages, visits, redirects };
      }
      const login = this.#login(forms, request.url, walk);
      if (login === LOGIN_CAME_BACK) return stop(login);
      const next = login ?? decide(forms, request.url, options.consent ?? 'approve', walk);
      if (next) {
        request = next;
        continue;
      }
      return stop(forms.length ? `a page with a form the driver does not recognize as login or consent (HTTP ${res.status})` : `a page without a form (HTTP ${res.status})`);
    }
    return { kind: 'page', status: 0, url: request.url, body: '', headline: '', reason: `no redirect to the redirect_uri within ${MAX_STEPS} steps (a redirect loop?)`, pages, visits };
  }

  /**
   * Opens verification_uri, types the user code into the form that asks for it, logs in when the
   * login form appears, and submits the decision (approve, or deny/cancel/abort) wherever it is
   * asked — before or after the login, on one page or two. Ends at the first page without a form.
   */
  async activateDevice(activation: DeviceActivation): Promise<DeviceActivationOutcome> {
    const session = new Session(this.o.http, 'device activation page');
    const walk = newWalk();
    const { pages, visits } = walk;
    let request: Step = { method: 'GET', url: activation.verificationUri };
    let codeSent = false;
    let decided = false;
    for (let step = 0; step < MAX_STEPS; step++) {
      const res = await session.send(request);
      const redirect = redirectOf(res, request.url);
      if (redirect) {
        request = { method: 'GET', url: redirect };
        continue;
      }
      const end = (reason: string, done = decided): DeviceActivationOutcome => ({
        decided: done, status: res.status, url: request.url, body: res.text, headline: pageHeadline(res.text), reason, pages, visits,
      });
      walk.page = { url: request.url, res };
      const forms = parseForms(res.text);
      const codeForm = forms.map((f) => [f, userCodeInput(f)] as const).find(([, input]) => input);
      if (codeForm) {
        if (codeSent) {
          return end(decided
            ? `the user-code form came back after the decision (HTTP ${res.status}): the activation is over`
            : `the user-code form came back after the code was submitted (HTTP ${res.status}): the code was not accepted?`);
        }
        codeSent = true;
        passed(walk, 'user-code');
        const [form, input] = codeForm;
        const button = form.fields.find((f) => isSubmit(f) && !DENY.test(`${f.name ?? ''} ${f.value} ${f.text}`));
        request = submission(form, request.url, formValues(form, { [input!.name!]: activation.userCode }, button));
        continue;
      }
      const login = this.#login(forms, request.url, walk);
      if (login === LOGIN_CAME_BACK) return end(login);
      // A decision counts only once the code is in: before it, a "Cancel" would cancel nothing.
      const decision = login || !codeSent ? undefined : decide(forms, request.url, activation.decision, walk);
      decided ||= decision !== undefined;
      const next = login ?? decision;
      if (next) {
        request = next;
        continue;
      }
      if (!codeSent) return end(`no form with a text input for the user code at the verification URI (HTTP ${res.status})`);
      if (forms.length) {
        const why = activation.decision === 'deny' && findDecision(forms, 'approve') ? 'a page that asks for approval but offers no deny, cancel or abort button' : 'a page with a form the driver does not recognize';
        return end(`${why} (HTTP ${res.status})`);
      }
      // The end of the activation. Approving by signing in counts: the IdP asked nothing more.
      const approvedBySignIn = activation.decision === 'approve' && walk.logins > 0;
      return end(`the activation ended on a page without a form (HTTP ${res.status})`, decided || approvedBySignIn);
    }
    return {
      decided, status: 0, url: request.url, body: '', headline: '', reason: `the activation did not end within ${MAX_STEPS} steps (a redirect loop?)`, pages, visits,
    };
  }
}
