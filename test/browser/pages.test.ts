/**
 * Pages in Chromium: the browser driver's walk (the redirect_uri never loaded, consent answered
 * either way, a wrong password seen for what it is), the reference's own pages as a user meets
 * them, and the HTML report (renders, filters work, no console errors). One Chromium for the file;
 * the screenshots are kept in the test's temp folder.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BrowserStep, validateConfig } from '../../harness/config/load.ts';
import { parseJsonc } from '../../harness/config/jsonc.ts';
import { BrowserLoginDriver } from '../../harness/login/browser.ts';
import { BrowserHost } from '../../harness/login/chromium.ts';
import type { HttpEvidence } from '../../harness/model/results.ts';
import { ScreenshotStore } from '../../harness/context/screenshots.ts';
import { runConformance, writeReports } from '../../index.ts';
import { SEEDED_CLIENTS, SEEDED_USER, targetConfig } from '../../reference/index.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';
import { type RunningReference, startReference } from '../support/reference.ts';

const host = new BrowserHost();
let dir: string;
let shots: ScreenshotStore;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'idpc-pages-'));
  shots = new ScreenshotStore(dir);
});
afterAll(() => host.close());

/** A page of its own, closed with its context by the test. */
async function newPage(): Promise<Page> {
  return (await host.newContext()).newPage();
}

const shot = async (page: Page, name: string) => shots.save('pages', name, await page.screenshot());

describe('the browser login driver', () => {
  let ref: RunningReference;
  let app: { url: string; hits: string[]; close(): Promise<void> };
  beforeAll(async () => {
    // A client app on loopback as the redirect_uri: it must never see a request.
    const hits: string[] = [];
    const server = createServer((req, res) => {
      hits.push(req.url ?? '');
      res.end('client app');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
    app = {
      url,
      hits,
      close: () =>
        new Promise((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    };
    ref = await startReference({ clients: { public: { ...SEEDED_CLIENTS.public, redirectUris: [url] } } });
  });
  afterAll(async () => {
    await ref?.close();
    await app?.close();
  });

  function driver(password = SEEDED_USER.password) {
    const transcripts: HttpEvidence[] = [];
    const labels: string[] = [];
    const d = new BrowserLoginDriver({
      newContext: () => host.newContext(),
      username: SEEDED_USER.username,
      password,
      recorder: {
        screenshot: async (_page, label) => {
          labels.push(label);
        },
        transcript: (e) => transcripts.push(e),
      },
      timeoutMs: 5_000,
    });
    return { d, transcripts, labels };
  }

  const authorizationUrl = (state: string) => {
    const u = new URL(ref.url('/auth'));
    const params = {
      response_type: 'code',
      client_id: 'spa',
      redirect_uri: app.url,
      scope: 'openid profile',
      state,
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    };
    for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
    return u.href;
  };

  it('logs in, approves, and stops at the redirect to the redirect_uri without loading it', async () => {
    const { d, transcripts, labels } = driver();
    const outcome = await d.authorize(authorizationUrl('s-1'), [app.url]);
    expect(outcome).toMatchObject({
      kind: 'redirect',
      params: { state: 's-1', code: expect.any(String) },
      pages: ['login', 'consent'],
    });
    expect(outcome.kind === 'redirect' && outcome.url.startsWith(`${app.url}?code=`)).toBe(true);
    expect(app.hits).toEqual([]);
    expect(outcome.requests?.filter((r) => r.blocked)).toEqual([
      expect.objectContaining({ url: outcome.kind === 'redirect' ? outcome.url : '', navigation: true }),
    ]);
    // The pages it acted on, with the headers they were served with (for the framing check).
    expect(outcome.visits?.map((v) => [v.kind, v.status, v.headers['x-frame-options']])).toEqual([
      ['login', 200, 'DENY'],
      ['consent', 200, 'DENY'],
    ]);
    // In the transcripts the redirect appears once, as a request that was never sent.
    const toApp = transcripts.filter((e) => e.request.url.startsWith(app.url));
    expect(toApp.map((e) => [e.response, e.error])).toEqual([
      [undefined, 'not sent: the redirect to the redirect_uri, caught and not loaded'],
    ]);
    expect(labels).toEqual(['authorization request', 'login form filled in', 'after signing in']);
  });

  it('denies when asked: the redirect carries access_denied', async () => {
    const outcome = await driver().d.authorize(authorizationUrl('s-2'), [app.url], { consent: 'deny' });
    expect(outcome).toMatchObject({
      kind: 'redirect',
      params: { error: 'access_denied', state: 's-2' },
      pages: ['login', 'consent'],
    });
    expect(app.hits).toEqual([]);
  });

  it('a wrong password ends at the login page that came back, with the reason', async () => {
    const outcome = await driver('not-the-password').d.authorize(authorizationUrl('s-3'), [app.url]);
    expect(outcome).toMatchObject({ kind: 'page', status: 200, headline: 'Sign in', pages: ['login'] });
    expect(outcome.kind === 'page' && outcome.reason).toMatch(
      /the login form came back after the credentials were submitted/,
    );
  });
});

describe('the worked steps example of docs/login.md', () => {
  /**
   * An identifier-first IdP front channel: username, Next, password, sometimes a prompt, consent with Accept/Cancel.
   */
  async function startIdentifierFirstIdp(prompt: boolean) {
    const page = (title: string, body: string) =>
      `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const send = (body: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(body);
      let body = '';
      req.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      req.on('end', () => {
        const form = new URLSearchParams(body);
        if (url.pathname === '/auth') {
          return send(
            page(
              'Sign in',
              `<form method="post" action="/password?${url.searchParams}"><input name="identifier" ` +
                `aria-label="Email"><button type="button" onclick="this.form.submit()">Next</button></form>`,
            ),
          );
        }
        if (url.pathname === '/password') {
          if (form.get('identifier') !== SEEDED_USER.username) return send(page('Who?', '<p>unknown user</p>'));
          return send(
            page(
              'Password',
              `<form method="post" action="/${prompt ? 'prompt' : 'consent'}?${url.searchParams}"><input ` +
                `type="password" name="pw"><button type="submit">Sign in</button></form>`,
            ),
          );
        }
        if (url.pathname === '/prompt' || url.pathname === '/consent') {
          if (url.pathname === '/prompt' && form.get('pw') !== SEEDED_USER.password)
            return send(page('Wrong', '<p>wrong password</p>'));
          if (url.pathname === '/consent' && !prompt && form.get('pw') !== SEEDED_USER.password)
            return send(page('Wrong', '<p>wrong password</p>'));
          if (url.pathname === '/prompt')
            return send(
              page(
                'Stay signed in?',
                `<form method="post" action="/consent?${url.searchParams}"><button>Not now</button></form>`,
              ),
            );
          return send(
            page(
              'Consent',
              `<form method="post" action="/done?${url.searchParams}"><button name="a" ` +
                `value="yes">Accept</button><button name="a" value="no">Cancel</button></form>`,
            ),
          );
        }
        if (url.pathname === '/done') {
          const target = new URL(url.searchParams.get('redirect_uri')!);
          target.searchParams.set(
            form.get('a') === 'yes' ? 'code' : 'error',
            form.get('a') === 'yes' ? 'c0de-from-the-idp' : 'access_denied',
          );
          target.searchParams.set('state', url.searchParams.get('state') ?? '');
          return res.writeHead(302, { location: target.href }).end();
        }
        res.writeHead(404).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return {
      origin,
      close: () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    };
  }

  it('logs in through two pages, a prompt that may or may not come, and consent either way', async () => {
    const page = await readFile(new URL('../../docs/login.md', import.meta.url), 'utf8');
    const example = /```jsonc\n("login": \{\n {2}"driver": "browser",[\s\S]*?)\n```/.exec(page)?.[1];
    expect(example, 'the worked example in docs/login.md').toBeTruthy();
    const { login } = parseJsonc(`{${example}}`, 'docs/login.md') as { login: { steps: BrowserStep[] } };
    const config = validateConfig({ issuer: 'https://idp.example', login }, {});
    const steps = config.login.driver === 'browser' ? config.login.steps : undefined;
    for (const prompt of [true, false]) {
      const idp = await startIdentifierFirstIdp(prompt);
      try {
        const d = new BrowserLoginDriver({
          newContext: () => host.newContext(),
          ...SEEDED_USER,
          ...(steps ? { steps } : {}),
          recorder: { screenshot: async () => {}, transcript: () => {} },
          timeoutMs: 5_000,
        });
        const url = `${idp.origin}/auth?redirect_uri=${encodeURIComponent('https://app.example/cb')}&state=st`;
        await expect(d.authorize(url, ['https://app.example/cb'])).resolves.toMatchObject({
          kind: 'redirect',
          params: { code: 'c0de-from-the-idp', state: 'st' },
          pages: ['login', 'consent'],
        });
        if (!prompt)
          await expect(d.authorize(url, ['https://app.example/cb'], { consent: 'deny' })).resolves.toMatchObject({
            kind: 'redirect',
            params: { error: 'access_denied' },
          });
      } finally {
        await idp.close();
      }
    }
  }, 30_000);
});

describe('device activation with steps on an IdP that asks for the login before the code', () => {
  it('runs the steps on the login page, then types the code and approves', async () => {
    const seen: string[] = [];
    const page = (title: string, body: string) =>
      `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      req.on('end', () => {
        const form = new URLSearchParams(body);
        const send = (html: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(html);
        seen.push(`${req.method} ${req.url}${body ? ` ${[...form.keys()].join(',')}` : ''}`);
        if (req.url === '/device')
          return send(
            page(
              'Log in',
              '<form method="post" action="/login"><input id="user" name="u"><input id="pass" type="password" ' +
                'name="p"><button id="go">Log in</button></form>',
            ),
          );
        if (req.url === '/login')
          return send(
            form.get('p') === SEEDED_USER.password
              ? page(
                  'Code',
                  '<form method="post" action="/code"><input name="device_code_input"><button>Next</button></form>',
                )
              : page('No', 'wrong'),
          );
        if (req.url === '/code')
          return send(
            form.get('device_code_input') === 'WDJB-MJHT'
              ? page(
                  'Allow?',
                  '<form method="post" action="/done"><button name="d" value="1">Allow</button><button name="d" ' +
                    'value="0">Deny</button></form>',
                )
              : page('No', 'bad code'),
          );
        if (req.url === '/done') return send(page('Done', form.get('d') === '1' ? 'connected' : 'refused'));
        res.writeHead(404).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const d = new BrowserLoginDriver({
        newContext: () => host.newContext(),
        ...SEEDED_USER,
        steps: [
          { fill: '#user', value: '${user.username}' },
          { fill: '#pass', value: '${user.password}' },
          { click: '#go' },
        ],
        recorder: { screenshot: async () => {}, transcript: () => {} },
        timeoutMs: 5_000,
      });
      const outcome = await d.activateDevice({
        verificationUri: `http://127.0.0.1:${(server.address() as AddressInfo).port}/device`,
        userCode: 'WDJB-MJHT',
        decision: 'approve',
      });
      expect(outcome).toMatchObject({ decided: true, headline: 'Done', pages: ['login', 'user-code', 'consent'] });
      expect(seen.filter((r) => !r.includes('favicon'))).toEqual([
        'GET /device',
        'POST /login u,p',
        'POST /code device_code_input',
        'POST /done d',
      ]);
    } finally {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    }
  });
});

describe("the reference's pages in a real browser", () => {
  let ref: RunningReference;
  beforeAll(async () => {
    ref = await startReference();
  });
  afterAll(() => ref?.close());

  const focused = (page: Page) =>
    page.evaluate('document.activeElement && (document.activeElement.id || document.activeElement.textContent)');

  it(
    'login: labelled inputs, focus on the first, an error that keeps the username and focuses the password; ' +
      'consent names the client and the scopes',
    async () => {
      const page = await newPage();
      try {
        const u = new URL(ref.url('/auth'));
        for (const [k, v] of Object.entries({
          response_type: 'code',
          client_id: 'spa',
          redirect_uri: 'https://spa.example.test/callback',
          scope: 'openid profile offline_access',
          state: 'x',
          code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
          code_challenge_method: 'S256',
        }))
          u.searchParams.set(k, v);
        await page.goto(u.href);
        await expect(page.title()).resolves.toBe('Sign in');
        expect(await page.getByLabel('Username').getAttribute('name')).toBe('username');
        expect(await page.getByLabel('Password').getAttribute('type')).toBe('password');
        expect(await focused(page)).toBe('username');
        expect(await page.locator('main').innerText()).toContain('Third-Party SPA');
        await shot(page, 'login');

        await page.getByLabel('Username').fill('alice');
        await page.getByLabel('Password').fill('wrong-password');
        await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Sign in' }).click()]);
        expect(await page.getByRole('alert').innerText()).toBe('Invalid username or password.');
        expect(await page.getByLabel('Username').inputValue()).toBe('alice');
        expect(await focused(page)).toBe('password');
        await shot(page, 'login-error');

        await page.getByLabel('Password').fill(SEEDED_USER.password);
        await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Sign in' }).click()]);
        await expect(page.title()).resolves.toBe('Authorize access');
        const text = await page.locator('main').innerText();
        for (const expected of [
          'Third-Party SPA',
          'spa',
          'Your name and profile picture',
          'offline_access',
          'Stay connected while you are away',
        ])
          expect(text).toContain(expected);
        expect(await focused(page)).toBe('Allow');
        expect(await page.getByRole('button').allInnerTexts()).toEqual(['Allow', 'Deny']);
        await shot(page, 'consent');
      } finally {
        await page.context().close();
      }
    },
  );

  it(
    'the error page says what went wrong and that the user was not sent back; the activation page asks ' +
      'for the code',
    async () => {
      const page = await newPage();
      try {
        const response = await page.goto(
          ref.url('/auth?response_type=code&client_id=spa&redirect_uri=https%3A%2F%2Fevil.example%2Fcb'),
        );
        expect(response?.status()).toBe(400);
        expect(await page.locator('h1').innerText()).toBe('Something went wrong');
        expect(await page.locator('main').innerText()).toContain('you have not been redirected back to it');
        expect(await page.getByRole('alert').innerText()).toBe(
          'invalid_request: redirect_uri is not registered for this client',
        );
        await shot(page, 'error');

        await page.goto(ref.url('/activate'));
        expect(await page.getByLabel('Code').getAttribute('name')).toBe('user_code');
        expect(await focused(page)).toBe('user_code');
        await shot(page, 'activate');
      } finally {
        await page.context().close();
      }
    },
  );
});

describe('the HTML report in Chromium', () => {
  it('renders with its screenshots, the failure first, its count cards and area filter change what is shown, and ' +
    'the console stays clean', async () => {
    const reportDir = path.join(dir, 'report');
    // A failure (a planted flaw), a skip (no machine client), passes, and a browser scenario's screenshots.
    const ref = await startReference({ flaws: ['consent-skipped'] });
    const ids = [
      'browser.error-page',
      'consent.third-party-required',
      'client-credentials.issues-token',
      'pkce.verifier-mismatch',
      'pkce.plain-rejected',
    ];
    let report;
    try {
      const target = targetConfig(ref.server);
      delete target.clients.machine;
      report = await runConformance({
        target,
        scenarios: BUILT_IN_SCENARIOS.filter((s) => ids.includes(s.id)),
        browser: host,
        reportDir,
        formats: ['html'],
        seed: 3,
      });
    } finally {
      await ref.close();
    }
    expect(report.results.map((r) => [r.id, r.status])).toEqual(
      expect.arrayContaining([
        ['consent.third-party-required', 'failed'],
        ['client-credentials.issues-token', 'skipped'],
        ['browser.error-page', 'passed'],
      ]),
    );
    await writeReports(report, reportDir, ['html']);

    const page = await newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    try {
      await page.goto(pathToFileURL(path.join(reportDir, 'report.html')).href);
      expect(await page.locator('h1').innerText()).toBe('OAuth 2.0 / OpenID Connect conformance report');
      const visible = () => page.locator('section.result:visible').count();
      const shown = () => page.locator('#shown-count').innerText();
      expect(await visible()).toBe(ids.length);
      expect(await shown()).toBe(String(ids.length));

      // The error page's screenshot is there and loads from the file beside the report.
      const section = page.locator('#r-browser-error-page');
      await section.locator('summary.line').click();
      await section.locator('summary', { hasText: 'Evidence' }).click();
      const img = section.locator('figure.shot img').first();
      await img.scrollIntoViewIfNeeded();
      await expect
        .poll(() =>
          img.evaluate((el: { complete: boolean; naturalWidth: number }) => (el.complete ? el.naturalWidth : 0)),
        )
        .toBeGreaterThan(0);
      await page.screenshot({ path: path.join(dir, 'report.png'), fullPage: true });

      // The planted flaw's failure comes first, with its deciding exchange open; the passed card filters.
      expect(await page.locator('section.result').first().getAttribute('id')).toBe('r-consent-third-party-required');
      expect(await page.locator('#r-consent-third-party-required details.exchange.decisive[open]').count()).toBe(1);
      await page.locator('button.card[data-group="passed"]').click();
      const passed = report.results.filter((r) => r.status === 'passed').length;
      expect(await visible()).toBe(passed);
      expect(await shown()).toBe(String(passed));
      await page.locator('button.card[data-group="passed"]').click();
      await page.locator('#filter-area').selectOption('pkce');
      const sections = await Promise.all(
        (await page.locator('section.result:visible').all()).map((l) => l.getAttribute('id')),
      );
      expect(sections.sort()).toEqual(['r-pkce-plain-rejected', 'r-pkce-verifier-mismatch']);
      await page.locator('summary', { hasText: 'All scenarios' }).click();
      expect(await page.locator('nav li:visible').count()).toBe(2);
      await page.screenshot({ path: path.join(dir, 'report-filtered.png'), fullPage: true });
      expect(problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, 30_000);
});
