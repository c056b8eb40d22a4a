/**
 * A user agent for the reference's OIDC session tests: the harness's own cookie jar
 * (harness/login/session.ts, tough-cookie), so the login session survives from one request to the
 * next, redirects not followed, and a walk through the login and consent pages (forms read by
 * harness/login/html.ts).
 */
import { LoginSession } from '../../harness/login/session.ts';
import { SEEDED_USER, type UserConfig } from '../../reference/index.ts';
import { formAction } from '../reference/helpers.ts';

/** One user agent: a cookie jar, redirects not followed. */
export class Browser {
  readonly session = new LoginSession('test browser');
  /** Every Set-Cookie line received. */
  readonly setCookies: string[] = [];
  /** Whether the jar holds a cookie named `name` that a request to `url` would send. */
  hasCookie(name: string, url: string): boolean {
    return this.session.jar.getCookiesSync(url).some((c) => c.key === name);
  }
  async send(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Response> {
    const headers: Record<string, string> = {};
    const cookie = this.session.cookieHeader(url);
    if (cookie) headers.cookie = cookie;
    if (init.form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(url, {
      method: init.method ?? (init.form ? 'POST' : 'GET'),
      headers,
      redirect: 'manual',
      ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
    });
    this.setCookies.push(...res.headers.getSetCookie());
    this.session.store(url, res.headers.getSetCookie());
    return res;
  }
}

export interface Walk {
  location?: URL;
  page?: { status: number; html: string };
  pages: string[];
}

/**
 * Follows a URL at the IdP as the user: logs in as `user`, answers consent, stops at a redirect off the IdP or at a
 * page it will not act on.
 */
export async function walk(
  browser: Browser,
  issuer: string,
  url: string,
  o: { user?: UserConfig; decision?: 'approve' | 'deny'; act?: boolean; post?: boolean } = {},
): Promise<Walk> {
  const pages: string[] = [];
  let res = o.post
    ? await browser.send(url.split('?')[0]!, { form: Object.fromEntries(new URL(url).searchParams) })
    : await browser.send(url);
  for (let step = 0; step < 8; step++) {
    const location = res.headers.get('location');
    if (location) {
      const next = new URL(location, issuer);
      if (!next.href.startsWith(issuer)) return { location: next, pages };
      res = await browser.send(next.href);
      continue;
    }
    const html = await res.text();
    const kind = /name="password"/.test(html) ? 'login' : /name="decision"/.test(html) ? 'consent' : undefined;
    if (!kind || o.act === false) return { page: { status: res.status, html }, pages };
    pages.push(kind);
    const user = o.user ?? SEEDED_USER;
    res = await browser.send(formAction(html), {
      form:
        kind === 'login' ? { username: user.username, password: user.password } : { decision: o.decision ?? 'approve' },
    });
  }
  throw new Error('the walk did not end');
}
