/**
 * Walks of the browser driver that share or empty a context.
 *
 * Fresh walks on emptied contexts (BrowserHost.emptiedContext/giveBack): a context a fresh walk used is emptied at its
 * end (cookies, and the local storage, session storage and IndexedDB of every origin it visited) and serves the next
 * fresh walk, which must find it as new as a new context would be. A page here stores something in each, and reports on
 * the next visit what it found.
 *
 * Walks on the run's shared session in its one context take turns: none loads a login form while another signs in (a
 * CSRF token rotated on sign-in, as Django does, would refuse the form loaded before).
 *
 * Also: the authorization request sent as a form POST.
 */
import { type IncomingMessage, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserLoginDriver } from '../../harness/login/browser.ts';
import { BrowserHost } from '../../harness/login/chromium.ts';
import { type BrowserState, LoginSession } from '../../harness/login/session.ts';

const USER = { username: 'alice', password: 'wonderland' } as const;
const BROWSER_TEST_MS = 90_000;

/** Counts the new contexts asked for, and the emptied ones given back and taken. */
class CountingHost extends BrowserHost {
  created = 0;
  given = 0;
  override newContext(state?: BrowserState): Promise<BrowserContext> {
    this.created++;
    return super.newContext(state);
  }
  override giveBack(context: BrowserContext): void {
    this.given++;
    super.giveBack(context);
  }
}

/** What the login page's server saw: the Cookie header of each GET, and what the page found stored (posted back). */
interface Seen {
  cookies: (string | undefined)[];
  stored: string[];
  posted: { method: string; body: string }[];
  /** Sign-ins the CSRF fixture refused (a stale token), and those it took. */
  csrfRefused: number;
  signIns: number;
}

/**
 * The login page reads what local storage, session storage and IndexedDB hold, puts it in a hidden field, then stores
 * something in each (and the server sets a cookie): a walk that starts where an earlier one left would post "1|1|1".
 */
const LOGIN_PAGE = `<!doctype html><html><head><title>Sign in</title></head><body>
<form method="post" action="/login"><input type="hidden" name="stored" id="stored" value="pending">
<label for="u">Username</label><input id="u" name="username"><label for="p">Password</label>
<input id="p" name="password" type="password"><button type="submit">Sign in</button></form>
<script>
const open = indexedDB.open('idpc', 1);
open.onupgradeneeded = () => open.result.createObjectStore('s');
open.onsuccess = () => {
  const db = open.result;
  const get = db.transaction('s').objectStore('s').get('k');
  get.onsuccess = () => {
    const found = [localStorage.getItem('k') || '', sessionStorage.getItem('k') || '', get.result || ''];
    document.getElementById('stored').value = found.join('|');
    localStorage.setItem('k', '1');
    sessionStorage.setItem('k', '1');
    db.transaction('s', 'readwrite').objectStore('s').put('1', 'k');
  };
};
</script></body></html>`;

async function body(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text;
}

let server: ReturnType<typeof createServer>;
let origin: string;
const seen: Seen = { cookies: [], stored: [], posted: [], csrfRefused: 0, signIns: 0 };

/** The cookies of a request, by name. */
function cookieMap(req: IncomingMessage): Map<string, string> {
  return new Map(
    (req.headers.cookie ?? '')
      .split(';')
      .map((c) => c.trim().split('='))
      .filter((kv): kv is [string, string] => kv.length === 2),
  );
}

/**
 * Django-like: the login form carries the csrftoken cookie's value; a sign-in checks it and rotates the cookie, so a
 * form loaded before another tab signed in is refused with an empty HTTP 403. Signed in, /csrf/auth redirects with a
 * code.
 */
async function csrfFixture(req: IncomingMessage, url: URL, res: import('node:http').ServerResponse): Promise<void> {
  const jar = cookieMap(req);
  const state = url.searchParams.get('state') ?? '';
  if (url.pathname === '/csrf/auth') {
    if (jar.get('sid') === 'signed-in') {
      res.writeHead(302, { location: `${REDIRECT_URI}?code=c-csrf&state=${encodeURIComponent(state)}` });
      res.end();
      return;
    }
    const token = jar.get('csrftoken') ?? `t-${Math.random().toString(36).slice(2)}`;
    res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': `csrftoken=${token}; Path=/` });
    res.end(`<!doctype html><html><head><title>Sign in</title></head><body>
<form method="post" action="/csrf/login?state=${encodeURIComponent(state)}">
<input type="hidden" name="csrf" value="${token}"><label for="u">Username</label><input id="u" name="username">
<label for="p">Password</label><input id="p" name="password" type="password"><button type="submit">Sign in</button>
</form></body></html>`);
    return;
  }
  const form = new URLSearchParams(await body(req));
  if (!jar.get('csrftoken') || form.get('csrf') !== jar.get('csrftoken')) {
    seen.csrfRefused++;
    res.writeHead(403);
    res.end();
    return;
  }
  seen.signIns++;
  res.writeHead(302, {
    location: `/csrf/auth?state=${encodeURIComponent(state)}`,
    'set-cookie': ['sid=signed-in; Path=/', `csrftoken=t-${Math.random().toString(36).slice(2)}; Path=/`],
  });
  res.end();
}
const REDIRECT_URI = 'https://app.example.test/cb';
const host = new CountingHost();

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname.startsWith('/csrf/')) {
      await csrfFixture(req, url, res);
      return;
    }
    if (url.pathname === '/auth') {
      const sent = req.method === 'POST' ? await body(req) : url.search.slice(1);
      seen.posted.push({ method: req.method ?? '', body: sent });
      seen.cookies.push(req.headers.cookie);
      const state = new URLSearchParams(sent).get('state') ?? '';
      res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': `sid=s-${seen.cookies.length}; Path=/` });
      res.end(LOGIN_PAGE.replace('action="/login"', `action="/login?state=${encodeURIComponent(state)}"`));
      return;
    }
    if (url.pathname === '/login' && req.method === 'POST') {
      const form = new URLSearchParams(await body(req));
      seen.stored.push(form.get('stored') ?? '');
      const ok = form.get('username') === USER.username && form.get('password') === USER.password;
      const back = new URL(REDIRECT_URI);
      back.searchParams.set(ok ? 'code' : 'error', ok ? 'c-1' : 'access_denied');
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      res.writeHead(302, { location: back.href });
      res.end();
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await host.close();
  await new Promise((resolve) => server.close(resolve));
});

function driver(): BrowserLoginDriver {
  return new BrowserLoginDriver({
    newContext: (state) => host.newContext(state),
    emptied: { take: () => host.emptiedContext(), giveBack: (context) => host.giveBack(context) },
    ...USER,
    timeoutMs: 20_000,
    recorder: { screenshot: async () => undefined, transcript: () => undefined },
  });
}

const authorizationUrl = (state: string) => {
  const query = new URLSearchParams({ response_type: 'code', client_id: 'app', redirect_uri: REDIRECT_URI, state });
  return `${origin}/auth?${query}`;
};

describe('fresh walks on emptied browser contexts', () => {
  it('find no cookie and no stored data of the walk before, in a context that walk gave back', {
    timeout: BROWSER_TEST_MS,
  }, async () => {
    const before = { created: host.created, given: host.given };
    for (const state of ['s-1', 's-2', 's-3']) {
      const outcome = await driver().authorize(authorizationUrl(state), [REDIRECT_URI]);
      expect(outcome).toMatchObject({ kind: 'redirect', params: { code: 'c-1', state }, pages: ['login'] });
    }
    // Each walk stored a cookie, local and session storage and IndexedDB; none found any of it.
    expect(seen.cookies.slice(-3)).toEqual([undefined, undefined, undefined]);
    expect(seen.stored.slice(-3)).toEqual(['||', '||', '||']);
    // One context served all three: each walk gave it back emptied, and the next took it.
    expect(host.given - before.given).toBe(3);
    expect(host.created - before.created).toBeLessThanOrEqual(1);
  });

  it('send the authorization request as an HTML form POST of its query parameters when asked', {
    timeout: BROWSER_TEST_MS,
  }, async () => {
    const outcome = await driver().authorize(authorizationUrl('s-post'), [REDIRECT_URI], { method: 'POST' });
    expect(outcome).toMatchObject({ kind: 'redirect', params: { code: 'c-1', state: 's-post' } });
    const request = seen.posted.at(-1)!;
    expect(request.method).toBe('POST');
    expect(Object.fromEntries(new URLSearchParams(request.body))).toEqual({
      response_type: 'code',
      client_id: 'app',
      redirect_uri: REDIRECT_URI,
      state: 's-post',
    });
  });
});

describe("walks on the run's shared session, in its one context", () => {
  it('take turns: started at once, none submits a login form loaded before another signed in (no stale token)', {
    timeout: BROWSER_TEST_MS,
  }, async () => {
    const session = new LoginSession();
    const context = host.newContext();
    const shared = () =>
      new BrowserLoginDriver({
        newContext: (state) => host.newContext(state),
        ...USER,
        timeoutMs: 20_000,
        recorder: { screenshot: async () => undefined, transcript: () => undefined },
        sharedSession: session,
        sharedContext: () => context,
      });
    const url = (state: string) => `${origin}/csrf/auth?state=${state}`;
    // Three at once: if they loaded the login page side by side, the first sign-in (rotating the token) would leave the
    // others holding stale forms.
    const outcomes = await Promise.all(
      ['a', 'b', 'c'].map((state) => shared().authorize(url(state), [REDIRECT_URI], { session: 'shared' })),
    );
    for (const [i, state] of ['a', 'b', 'c'].entries())
      expect(outcomes[i]).toMatchObject({ kind: 'redirect', params: { code: 'c-csrf', state } });
    expect(seen.csrfRefused).toBe(0);
    expect(seen.signIns).toBeGreaterThanOrEqual(1);
  });
});
