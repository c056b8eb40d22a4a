import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../../harness/http/client.ts';
import { Recorder } from '../../harness/http/recorder.ts';
import { isRedirectTo } from '../../harness/login/driver.ts';
import { FormLoginDriver } from '../../harness/login/form.ts';
import { formValues } from '../../harness/login/form-data.ts';
import { readPage } from '../../harness/login/html.ts';
import { LoginSession } from '../../harness/login/session.ts';
import { Redactor } from '../../harness/redact/redact.ts';
import { STUB, type StubIdp, startStubIdp } from '../support/stub-idp.ts';

describe('the HTML form reader', () => {
  it('reads forms, inputs, buttons and selects with any attribute quoting and entities', () => {
    const html = `<!-- <form action="/commented"></form> --><script>var s = "<form>";</script>
      <FORM Method=POST action='/login?x=1&amp;y=2'>
        <input type=hidden name=csrf value="a&quot;b&#39;c&#x41;">
        <input name='username' autocomplete=off>
        <input type="password" name="pw">
        <input type="checkbox" name="remember" value="1" checked>
        <input type="checkbox" name="spam" value="1">
        <select name="lang"><option value="en">English<option value="fr" selected>French</select>
        <textarea name="note">x &lt; y</textarea>
        <button type="submit" name="go" value="login">Sign <b>in</b></button>
      </FORM>`;
    const page = readPage(html, 'https://idp.test/a', 200);
    expect(page.forms).toEqual([{ action: '/login?x=1&y=2', method: 'POST' }]);
    expect(page.controls.find((f) => f.name === 'csrf')!.value).toBe('a"b\'cA');
    const button = page.controls.find((f) => f.tag === 'button')!;
    expect(button).toMatchObject({ type: 'submit', text: 'Sign in', value: 'login', form: 0 });
    expect(formValues(page, 0, { username: 'alice', pw: 'secret' }, button)).toEqual([
      ['csrf', 'a"b\'cA'],
      ['username', 'alice'],
      ['pw', 'secret'],
      ['remember', '1'],
      ['lang', 'fr'],
      ['note', 'x < y'],
      ['go', 'login'],
    ]);
  });

  it(
    'reads attributes as a browser does: > inside quotes, a form whose onsubmit compares, disabled ' +
      'inputs left out',
    () => {
      const page = readPage(
        `<form onsubmit="return x > 1" action="/go" method="post"><input name="a" value="a>b"><input name="off" ` +
          `value="1" disabled>
      <p>&lt;not a tag&gt; &amp;lt; &#60; &unknown; &nbsp;x</p><button>Go</button></form>`,
        'https://idp.test/',
        200,
      );
      expect(page.forms).toEqual([{ action: '/go', method: 'POST' }]);
      expect(formValues(page, 0)).toEqual([['a', 'a>b']]);
      expect(page.text).toContain('<not a tag> &lt; < &unknown; x');
    },
  );

  it('compares redirects by origin and path, not query', () => {
    expect(isRedirectTo('https://app.test/cb?code=1', ['https://app.test/cb'])).toBe(true);
    expect(isRedirectTo('https://app.test/cb/extra?code=1', ['https://app.test/cb'])).toBe(false);
    expect(isRedirectTo('https://app.test.evil/cb', ['https://app.test/cb'])).toBe(false);
    expect(isRedirectTo('com.example.app:/oauth?code=1', ['com.example.app:/oauth'])).toBe(true);
  });

  it('keeps cookies per host and path (tough-cookie), honours Domain, and forgets expired ones', () => {
    const jar = new LoginSession();
    jar.store('http://a.test/login/step', ['sid=1; Path=/', 'flow=2; Path=/login', 'gone=3; Max-Age=0']);
    expect(jar.cookieHeader('http://a.test/login/next')).toBe('flow=2; sid=1'); // longer paths first (RFC 6265 §5.4)
    expect(jar.cookieHeader('http://a.test/other')).toBe('sid=1');
    expect(jar.cookieHeader('http://b.test/')).toBeUndefined();
    jar.store('http://a.test/', ['sid=1; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT']);
    expect(jar.cookieHeader('http://a.test/other')).toBeUndefined();
    jar.store('http://login.example.test/', [
      'parent=1; Domain=example.test; Path=/',
      'foreign=1; Domain=other.test',
      'suffix=1; Domain=com',
    ]);
    expect(jar.cookieHeader('http://idp.example.test/x')).toBe('parent=1');
    expect(jar.cookieHeader('http://other.test/')).toBeUndefined();
  });
});

describe('the form login driver', () => {
  let stub: StubIdp | undefined;
  afterEach(async () => {
    await stub?.close();
    stub = undefined;
  });

  async function driver(fields?: { username: string; password: string }, password = STUB.user.password) {
    stub = await startStubIdp(fields ? { fields } : {});
    const recorder = new Recorder(new Redactor());
    const http = new HttpClient({ recorder });
    const d = new FormLoginDriver({
      http,
      username: STUB.user.username,
      password,
      ...(fields ? { usernameField: fields.username, passwordField: fields.password } : {}),
    });
    const url = (params: Record<string, string>) => {
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: STUB.web.id,
        redirect_uri: STUB.web.redirect,
        state: 'st-1',
        ...params,
      });
      return `${stub!.issuer}/authorize?${query}`;
    };
    return { d, url, recorder };
  }

  it('logs in, approves consent, and stops at the redirect to redirect_uri without fetching it', async () => {
    const { d, url, recorder } = await driver();
    const outcome = await d.authorize(url({}), [STUB.web.redirect]);
    expect(outcome).toMatchObject({ kind: 'redirect', pages: ['login', 'consent'], params: { state: 'st-1' } });
    expect(outcome.kind === 'redirect' && outcome.params.code).toBeTruthy();
    const fetched = recorder.evidence.flatMap((e) => (e.kind === 'http' ? [e.request.url] : []));
    expect(fetched.every((u) => u.startsWith(stub!.issuer))).toBe(true);
    expect(fetched).toHaveLength(3);
  });

  it('reports each page it passed with its URL, status and headers (e.g. for the anti-framing check)', async () => {
    const { d, url } = await driver();
    const outcome = await d.authorize(url({}), [STUB.web.redirect]);
    expect(outcome.visits?.map((v) => [v.kind, new URL(v.url).pathname, v.status])).toEqual([
      ['login', '/authorize', 200],
      ['consent', '/login', 200],
    ]);
    expect(outcome.visits?.[1]?.headers).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'set-cookie': expect.stringMatching(/^sid=/),
    });
    const denied = await d.authorize(url({}), [STUB.web.redirect], { consent: 'deny' });
    expect(denied.pages).toEqual(['login', 'consent']); // a denied consent page was seen and submitted too
  });

  it('with signIn: false, stops at the login form and submits nothing (the logout walk)', async () => {
    const { d, url, recorder } = await driver();
    const outcome = await d.authorize(url({}), [STUB.web.redirect], { signIn: false });
    expect(outcome).toMatchObject({ kind: 'page', status: 200, pages: [], signInPage: true });
    expect(outcome.kind === 'page' && outcome.reason).toBe('a sign-in page (HTTP 200); this walk signs no one in');
    const methods = recorder.evidence.flatMap((e) => (e.kind === 'http' ? [e.request.method] : []));
    expect(methods).toEqual(['GET']);
  });

  it('uses the configured field names', async () => {
    const { d, url } = await driver({ username: 'login_name', password: 'secret_word' });
    expect((await d.authorize(url({}), [STUB.web.redirect])).kind).toBe('redirect');
  });

  it('denies consent when asked to', async () => {
    const { d, url } = await driver();
    const outcome = await d.authorize(url({}), [STUB.web.redirect], { consent: 'deny' });
    expect(outcome).toMatchObject({ kind: 'redirect', params: { error: 'access_denied', state: 'st-1' } });
  });

  it('stops at the error page for an unregistered redirect_uri', async () => {
    const { d, url } = await driver();
    const outcome = await d.authorize(url({ redirect_uri: 'https://evil.test/cb' }), [
      'https://evil.test/cb',
      STUB.web.redirect,
    ]);
    expect(outcome).toMatchObject({
      kind: 'page',
      status: 400,
      headline: 'Stub IdP',
      reason: 'an error page (HTTP 400)',
    });
  });

  it('with stayWithin, follows redirects only within that origin and reports the one it did not follow', async () => {
    const server = createServer((req, res) => {
      res.writeHead(302, { location: req.url === '/start' ? '/next' : 'https://elsewhere.test/landing?x=1' }).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const recorder = new Recorder(new Redactor());
      const d = new FormLoginDriver({ http: new HttpClient({ recorder }), username: 'u', password: 'p' });
      const outcome = await d.authorize(`${origin}/start`, ['https://app.test/cb'], { stayWithin: origin });
      expect(outcome).toMatchObject({
        kind: 'page',
        status: 302,
        url: `${origin}/next`,
        location: 'https://elsewhere.test/landing?x=1',
      });
      expect(outcome.kind === 'page' && outcome.reason).toBe(
        `a redirect to https://elsewhere.test/landing?x=1, outside ${origin}, not followed`,
      );
      expect(recorder.evidence).toHaveLength(2);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('marks which form POST carried the credentials (a filled password input) in its redirect record', async () => {
    const pages: Record<string, string> = {
      '/start':
        '<form method="post" action="/login"><input name="user"><input type="password" name="pw">' +
        '<button>Sign in</button></form>',
      '/consent':
        '<p>The app wants access to your account</p><form method="post" action="/decide">' +
        '<button name="allowed" value="true">Allow</button></form>',
    };
    const server = createServer((req, res) => {
      if (req.method === 'GET') res.writeHead(200, { 'content-type': 'text/html' }).end(pages[req.url ?? ''] ?? '');
      else if (req.url === '/login') res.writeHead(303, { location: '/consent' }).end();
      else res.writeHead(302, { location: 'https://app.test/cb?code=c1' }).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const recorder = new Recorder(new Redactor());
      const d = new FormLoginDriver({ http: new HttpClient({ recorder }), username: 'u', password: 'p4ssword' });
      const outcome = await d.authorize(`${origin}/start`, ['https://app.test/cb']);
      expect(outcome.kind).toBe('redirect');
      expect(outcome.redirects?.map((r) => [r.method, new URL(r.url).pathname, r.status, r.credentials])).toEqual([
        ['POST', '/login', 303, true],
        ['POST', '/decide', 302, false],
      ]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('stops when the login form comes back (wrong password)', async () => {
    const { d, url } = await driver(undefined, 'wrong-password');
    const outcome = await d.authorize(url({}), [STUB.web.redirect]);
    expect(outcome).toMatchObject({ kind: 'page', pages: ['login'] });
    expect(outcome.kind === 'page' && outcome.reason).toMatch(/login form came back/);
  });
});
