/**
 * Just enough of a browser, over fetch, to drive simple server-rendered login, consent and
 * device-activation pages in tests: a cookie jar, manual redirects, and HTML form parsing.
 * (The harness's own form login driver lives in harness/login/; this only proves fixtures.)
 */

interface StoredCookie { name: string; value: string; path: string }

/** Host-only cookies of one origin, matched by path; expired or emptied cookies are dropped. */
export class CookieJar {
  readonly #cookies = new Map<string, StoredCookie>();

  store(requestUrl: URL, headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      let path = requestUrl.pathname.replace(/\/[^/]*$/, '') || '/';
      let expired = value === '';
      for (const attribute of attributes) {
        const [key = '', val = ''] = attribute.split('=').map((s) => s.trim());
        if (/^path$/i.test(key) && val.startsWith('/')) path = val;
        if (/^max-age$/i.test(key) && Number(val) <= 0) expired = true;
        if (/^expires$/i.test(key) && Date.parse(val) <= Date.now()) expired = true;
      }
      const key = `${name};${path}`;
      if (expired) this.#cookies.delete(key);
      else this.#cookies.set(key, { name, value, path });
    }
  }

  header(url: URL): string | undefined {
    const matching = [...this.#cookies.values()].filter(({ path }) =>
      url.pathname === path || url.pathname.startsWith(path.endsWith('/') ? path : `${path}/`));
    return matching.length ? matching.map(({ name, value }) => `${name}=${value}`).join('; ') : undefined;
  }
}

/** One request with the jar's cookies, no redirect following; the response's cookies are kept. */
export async function send(jar: CookieJar, url: URL, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const cookie = jar.header(url);
  if (cookie) headers.set('cookie', cookie);
  const response = await fetch(url, { ...init, headers, redirect: 'manual' });
  jar.store(url, response.headers);
  return response;
}

export interface HtmlForm {
  action: URL;
  method: string;
  /** Named inputs with their values (submit buttons excluded). */
  fields: Record<string, string>;
  hasPassword: boolean;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'", '#x27': "'", '#x2F': '/' };

function decodeEntities(text: string): string {
  return text.replace(/&(#x?[0-9a-f]+|[a-z]+);/gi, (whole, entity: string) => {
    if (ENTITIES[entity] !== undefined) return ENTITIES[entity];
    if (entity.startsWith('#x') || entity.startsWith('#X')) return String.fromCodePoint(parseInt(entity.slice(2), 16));
    if (entity.startsWith('#')) return String.fromCodePoint(parseInt(entity.slice(1), 10));
    return whole;
  });
}

function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const match of tag.matchAll(/([\w:.-]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g)) {
    const name = match[1];
    if (name) out[name.toLowerCase()] = decodeEntities(match[2] ?? match[3] ?? match[4] ?? '');
  }
  return out;
}

/** The page's forms, with actions resolved against the page URL. */
export function parseForms(html: string, pageUrl: URL): HtmlForm[] {
  const forms: HtmlForm[] = [];
  for (const match of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)) {
    const formAttributes = attributes(match[1] ?? '');
    const fields: Record<string, string> = {};
    let hasPassword = false;
    for (const input of (match[2] ?? '').matchAll(/<input\b([^>]*)>/gi)) {
      const attrs = attributes(input[1] ?? '');
      const type = (attrs.type ?? 'text').toLowerCase();
      if (type === 'password') hasPassword = true;
      if (attrs.name && type !== 'submit') fields[attrs.name] = attrs.value ?? '';
    }
    forms.push({
      action: new URL(formAttributes.action || pageUrl.href, pageUrl),
      method: (formAttributes.method ?? 'get').toLowerCase(),
      fields,
      hasPassword,
    });
  }
  return forms;
}

export interface FormFlowOptions {
  jar: CookieJar;
  username: string;
  password: string;
  usernameField: string;
  passwordField: string;
  /** A redirect to a URL for which this holds ends the flow (it is never requested). */
  isFinalRedirect?: (url: URL) => boolean;
  maxSteps?: number;
}

export type FormFlowEnd =
  | { kind: 'redirect'; url: URL }
  | { kind: 'page'; url: URL; status: number; html: string };

/**
 * Starts at `start` and follows redirects; on a page with a password form fills in the user's
 * credentials, on any other page with a POST form submits it as it is (consent: the approving
 * button carries no name; device activation: the code is prefilled). Ends at a final redirect or
 * at a page with no form to submit.
 */
export async function runFormFlow(start: URL, options: FormFlowOptions): Promise<FormFlowEnd> {
  let url = start;
  let init: RequestInit = {};
  for (let step = 0; step < (options.maxSteps ?? 12); step++) {
    const response = await send(options.jar, url, init);
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      const next = new URL(location, url);
      if (options.isFinalRedirect?.(next)) return { kind: 'redirect', url: next };
      url = next;
      init = {};
      continue;
    }
    const html = await response.text();
    const form = parseForms(html, url).find((f) => f.method === 'post');
    if (response.status !== 200 || !form) return { kind: 'page', url, status: response.status, html };
    const fields = { ...form.fields };
    if (form.hasPassword) {
      fields[options.usernameField] = options.username;
      fields[options.passwordField] = options.password;
    }
    url = form.action;
    init = {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    };
  }
  throw new Error(`form flow from ${start.href} did not end within ${options.maxSteps ?? 12} steps`);
}
