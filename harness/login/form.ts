/**
 * The form login driver (DESIGN §4): HTTP only, no browser. Follows redirects with a cookie jar,
 * submits the login form (the one with a password input) with the user's credentials, submits
 * consent forms by their approving (or denying) button, and stops at the redirect to the
 * redirect_uri without fetching it — or at an error page.
 */
import type { HttpClient, HttpResponse } from '../http.ts';
import { type AuthorizeOptions, type AuthorizeOutcome, type LoginDriver, type PageKind, type PageVisit, isRedirectTo, responseParams } from './driver.ts';
import { type FormField, type HtmlForm, formValues, isSubmit, pageHeadline, parseForms } from './html.ts';

const MAX_STEPS = 15;
const APPROVE = /\b(allow|approve|accept|consent|yes|continue|authori[sz]e|grant|confirm|agree)\b/i;
const DENY = /\b(deny|decline|reject|cancel|no|refuse|disallow)\b/i;

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

function approvingButton(form: HtmlForm, decision: 'approve' | 'deny'): FormField | undefined {
  const submits = form.fields.filter(isSubmit);
  const reads = (f: FormField) => `${f.name ?? ''} ${f.value} ${f.text}`;
  if (decision === 'deny') return submits.find((f) => DENY.test(reads(f)));
  return submits.find((f) => APPROVE.test(reads(f)) && !DENY.test(`${f.value} ${f.text}`));
}

export class FormLoginDriver implements LoginDriver {
  readonly name = 'form';
  constructor(private readonly o: FormLoginOptions) {}

  async authorize(authorizationUrl: string, stopAt: string[], options: AuthorizeOptions = {}): Promise<AuthorizeOutcome> {
    const jar = new CookieJar();
    const pages: PageKind[] = [];
    const visits: PageVisit[] = [];
    let request: { method: 'GET' | 'POST'; url: string; form?: [string, string][] } = { method: 'GET', url: authorizationUrl };
    let loginsSubmitted = 0;
    for (let step = 0; step < MAX_STEPS; step++) {
      const headers: Record<string, string> = { accept: 'text/html,application/xhtml+xml' };
      const cookie = jar.header(request.url);
      if (cookie) headers.cookie = cookie;
      if (request.form) headers['content-type'] = 'application/x-www-form-urlencoded';
      const res: HttpResponse = await this.o.http.send({
        method: request.method,
        url: request.url,
        headers,
        ...(request.form ? { body: new URLSearchParams(request.form).toString() } : {}),
        label: step === 0 ? 'authorization request' : `login step ${step}`,
      });
      jar.store(request.url, res.headers.getSetCookie());
      const location = res.header('location');
      if (res.status >= 300 && res.status < 400 && location) {
        const next = new URL(location, request.url).href;
        if (isRedirectTo(next, stopAt)) return { kind: 'redirect', url: next, params: responseParams(next), pages, visits };
        if (options.stayWithin && new URL(next).origin !== new URL(options.stayWithin).origin) {
          return {
            kind: 'page', status: res.status, url: request.url, body: res.text, headline: pageHeadline(res.text),
            reason: `a redirect to ${next}, outside ${new URL(options.stayWithin).origin}, not followed`, location: next, pages, visits,
          };
        }
        request = { method: 'GET', url: next };
        continue;
      }
      const stop = (reason: string): AuthorizeOutcome => ({
        kind: 'page', status: res.status, url: request.url, body: res.text, headline: pageHeadline(res.text), reason, pages, visits,
      });
      const passed = (kind: PageKind) => {
        pages.push(kind);
        visits.push({ kind, url: request.url, status: res.status, headers: headersOf(res) });
      };
      const forms = parseForms(res.text);
      const action = (f: HtmlForm) => new URL(f.action || request.url, request.url).href;
      const formPost = forms.find((f) => isRedirectTo(action(f), stopAt));
      if (formPost) {
        const params = Object.fromEntries(formValues(formPost));
        return { kind: 'redirect', url: action(formPost), params, pages, visits };
      }
      const passwordField = this.o.passwordField ?? 'password';
      const login = forms.find((f) => f.fields.some((x) => x.type === 'password' || x.name === passwordField));
      if (login) {
        if (loginsSubmitted++ > 0) return stop('the login form came back after the credentials were submitted (wrong user, or wrong usernameField/passwordField?)');
        passed('login');
        const values = { [this.o.usernameField ?? 'username']: this.o.username, [passwordField]: this.o.password };
        request = this.#submission(login, action(login), formValues(login, values, login.fields.find(isSubmit)));
        continue;
      }
      const decision = options.consent ?? 'approve';
      const consent = forms.map((f) => [f, approvingButton(f, decision)] as const).find(([, b]) => b);
      if (consent) {
        passed('consent');
        const [form, button] = consent;
        request = this.#submission(form, action(form), formValues(form, {}, button));
        continue;
      }
      return stop(forms.length ? `a page with a form the driver does not recognize as login or consent (HTTP ${res.status})` : `a page without a form (HTTP ${res.status})`);
    }
    return { kind: 'page', status: 0, url: request.url, body: '', headline: '', reason: `no redirect to the redirect_uri within ${MAX_STEPS} steps (a redirect loop?)`, pages, visits };
  }

  #submission(form: HtmlForm, url: string, values: [string, string][]): { method: 'GET' | 'POST'; url: string; form?: [string, string][] } {
    if (form.method === 'POST') return { method: 'POST', url, form: values };
    const u = new URL(url);
    u.search = new URLSearchParams(values).toString();
    return { method: 'GET', url: u.href };
  }
}

function headersOf(res: HttpResponse): Record<string, string> {
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => { headers[name] = value; });
  return headers;
}
