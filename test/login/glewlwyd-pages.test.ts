/**
 * The generic walk on pages modelled on Glewlwyd 2.7's single-page login app (glewlwyd-fixtures.ts), with no configured
 * steps: the browser and auto drivers sign in (inputs rendered by script, sign-in by XHR), tick the scopes the grant
 * page asks for and grant them (a button outside any form), and press Continue (a button that works by script) to the
 * redirect with a code; a second walk on the same session is signed in already. The auto driver does the first request
 * over HTTP and goes on in the browser from the login app's shell, a page rendered by script; the form driver stops
 * there and names the browser.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AutoLoginDriver } from '../../harness/login/auto.ts';
import { BrowserLoginDriver } from '../../harness/login/browser.ts';
import { BrowserHost } from '../../harness/login/chromium.ts';
import type { LoginDriver } from '../../harness/login/driver.ts';
import { FormLoginDriver } from '../../harness/login/form.ts';
import { LoginSession } from '../../harness/login/session.ts';
import type { LoginWalk } from '../../harness/model/results.ts';
import { browserPart, loopbackHttp } from './driver-parts.ts';
import { USER } from './fixtures.ts';
import { type GlewlwydFixtures, startGlewlwydFixtures } from './glewlwyd-fixtures.ts';

const BROWSER_TEST_MS = 120_000;
const host = new BrowserHost();
let fx: GlewlwydFixtures;
beforeAll(async () => {
  fx = await startGlewlwydFixtures();
});
afterAll(async () => {
  await fx?.close();
  await host.close();
});

const http = loopbackHttp;
const browser = browserPart(host);

describe.each([
  [
    'browser',
    (session: LoginSession, onWalk: (w: LoginWalk) => void): LoginDriver =>
      new BrowserLoginDriver({ ...browser, ...USER, sharedSession: session, onWalk }),
  ],
  [
    'auto',
    (session: LoginSession, onWalk: (w: LoginWalk) => void): LoginDriver =>
      new AutoLoginDriver({ http: http(), ...USER, sharedSession: session, onWalk, browser }),
  ],
])('the %s driver on a Glewlwyd-like single-page login app, without steps', (name, make) => {
  it(
    'signs in, grants the scopes asked for, presses Continue, and on the same session goes straight to Continue',
    async () => {
      fx.grants.clear();
      const session = new LoginSession();
      const walks: LoginWalk[] = [];
      const d = make(session, (w) => walks.push(w));
      const first = await d.authorize(fx.url({ state: 'a' }), [fx.redirectUri], { session: 'shared' });
      expect(first).toMatchObject({ kind: 'redirect', params: { state: 'a', code: expect.stringMatching(/^code-/) } });
      expect(first.pages[0]).toBe('login');
      expect(fx.grants.get(USER.username)).toEqual(['openid', 'profile']);
      const second = await d.authorize(fx.url({ state: 'b' }), [fx.redirectUri], { session: 'shared' });
      expect(second).toMatchObject({ kind: 'redirect', params: { state: 'b' } });
      expect(second.pages).not.toContain('login');
      if (name === 'auto') {
        expect(walks[0]).toMatchObject({
          driver: 'auto',
          used: ['http', 'browser'],
          switched: { url: expect.stringMatching(/\/gw\/login\.html$/), reason: 'a page rendered by script' },
        });
        expect(walks[1]?.switched).toMatchObject({ remembered: true });
      } else expect(walks.map((w) => w.used)).toEqual([['browser'], ['browser']]);
    },
    BROWSER_TEST_MS,
  );
});

/** Steps a deployer writes for the fresh sign-in page only (docs/login.md), each given 5 s to find its element. */
const FRESH_SIGN_IN_STEPS = [
  { fill: '#username', value: '${user.username}', timeoutMs: 5_000 },
  { fill: '#password', value: '${user.password}', timeoutMs: 5_000 },
  { click: '#loginbut', timeoutMs: 5_000 },
];

describe.each([
  [
    'browser',
    (session: LoginSession): LoginDriver =>
      new BrowserLoginDriver({ ...browser, ...USER, sharedSession: session, steps: FRESH_SIGN_IN_STEPS }),
  ],
  [
    'auto',
    (session: LoginSession): LoginDriver =>
      new AutoLoginDriver({
        http: http(),
        ...USER,
        sharedSession: session,
        browser: { ...browser, steps: FRESH_SIGN_IN_STEPS },
      }),
  ],
])('the %s driver on the same app, with steps written for a fresh sign-in page', (_, make) => {
  it(
    'runs the steps on the sign-in page, and not on the signed-in page of the next walk: it presses Continue there',
    async () => {
      fx.grants.clear();
      const session = new LoginSession();
      const d = make(session);
      const first = await d.authorize(fx.url({ state: 'd' }), [fx.redirectUri], { session: 'shared' });
      expect(first).toMatchObject({ kind: 'redirect', params: { state: 'd' } });
      expect(first.pages[0]).toBe('login');
      // The signed-in page ("Hello alice", Continue / Logout) has no #username: steps run there would fail.
      const second = await d.authorize(fx.url({ state: 'e' }), [fx.redirectUri], { session: 'shared' });
      expect(second).toMatchObject({ kind: 'redirect', params: { state: 'e' } });
      expect(second.pages).not.toContain('login');
    },
    BROWSER_TEST_MS,
  );
});

describe('the form driver on the same app', () => {
  it('stops at the shell, a page rendered by script, and names the auto and browser drivers', async () => {
    const outcome = await new FormLoginDriver({ http: http(), ...USER }).authorize(fx.url({ state: 'c' }), [
      fx.redirectUri,
    ]);
    expect(outcome).toMatchObject({ kind: 'page', status: 200, pages: [] });
    expect(outcome.kind === 'page' && outcome.reason).toMatch(/rendered by script.*auto or browser driver/);
  });

  it('never had the redirect URI loaded', () => {
    expect(fx.redirectHits).toBe(0);
  });
});
