/**
 * The three login drivers — the one page walk over HTTP (form), in Chromium (browser), and over HTTP until a page needs
 * the browser (auto) — walk the same pages modelled on real IdPs (fixtures.ts), each with the outcome it should have:
 * the browser and auto complete every walk; the form driver completes what needs no script and, where a page needs
 * one, stops with a reason (or an error) that names the browser driver — never approving in place of a deny. One
 * Chromium for the file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreconditionError } from '../../harness/model/failures.ts';
import { HttpClient } from '../../harness/http/client.ts';
import { Recorder } from '../../harness/http/recorder.ts';
import { AutoLoginDriver } from '../../harness/login/auto.ts';
import { BrowserLoginDriver } from '../../harness/login/browser.ts';
import { BrowserHost } from '../../harness/login/chromium.ts';
import type { AuthorizeOutcome, LoginDriver } from '../../harness/login/driver.ts';
import { FormLoginDriver } from '../../harness/login/form.ts';
import { LoginSession } from '../../harness/login/session.ts';
import { Redactor } from '../../harness/redact/redact.ts';
import { loopbackFetch } from '../support/loopback-fetch.ts';
import { type LoginFixtures, USER, startLoginFixtures } from './fixtures.ts';

const BROWSER_TEST_MS = 90_000;
const host = new BrowserHost();
let fx: LoginFixtures;
beforeAll(async () => {
  fx = await startLoginFixtures();
});
afterAll(async () => {
  await fx?.close();
  await host.close();
});

function formDriver(sharedSession?: LoginSession): FormLoginDriver {
  const http = new HttpClient({
    recorder: new Recorder(new Redactor()),
    fetch: loopbackFetch,
    requestTimeoutMs: 20_000,
  });
  return new FormLoginDriver({ http, ...USER, ...(sharedSession ? { sharedSession } : {}) });
}

function browserDriver(sharedSession?: LoginSession): BrowserLoginDriver {
  return new BrowserLoginDriver({
    newContext: (state) => host.newContext(state),
    ...USER,
    timeoutMs: 20_000,
    recorder: { screenshot: async () => undefined, transcript: () => undefined },
    ...(sharedSession ? { sharedSession } : {}),
  });
}

function autoDriver(sharedSession?: LoginSession): AutoLoginDriver {
  const http = new HttpClient({
    recorder: new Recorder(new Redactor()),
    fetch: loopbackFetch,
    requestTimeoutMs: 20_000,
  });
  return new AutoLoginDriver({
    http,
    ...USER,
    ...(sharedSession ? { sharedSession } : {}),
    browser: {
      newContext: (state) => host.newContext(state),
      timeoutMs: 20_000,
      recorder: { screenshot: async () => undefined, transcript: () => undefined },
    },
  });
}

const DRIVERS: [string, (s?: LoginSession) => LoginDriver][] = [
  ['form', formDriver],
  ['browser', browserDriver],
  ['auto', autoDriver],
];

function authorize(
  d: LoginDriver,
  fixture: string,
  params: Record<string, string> = {},
  consent: 'approve' | 'deny' = 'approve',
): Promise<AuthorizeOutcome> {
  return d.authorize(fx.url(fixture, { state: 'st-1', ...params }), [fx.redirectUri], { consent });
}

describe.each(DRIVERS)('the %s driver', (name, make) => {
  /** It can walk pages that need scripts. */
  const browser = name !== 'form';

  it(
    'signs in on an identifier-first login: the username on one page, the password on the next',
    async () => {
      const outcome = await authorize(make(), 'idf');
      expect(outcome).toMatchObject({
        kind: 'redirect',
        params: { state: 'st-1', code: expect.stringMatching(/^code-/) },
        pages: ['login', 'login'],
        consentShown: false,
      });
    },
    BROWSER_TEST_MS,
  );

  it(
    'a login rendered entirely by script: the browser signs in; the form driver stops and names the browser driver',
    async () => {
      const outcome = await authorize(make(), 'spa');
      if (browser)
        expect(outcome).toMatchObject({
          kind: 'redirect',
          params: { state: 'st-1', code: expect.stringMatching(/^code-/) },
          pages: ['login'],
        });
      else {
        expect(outcome).toMatchObject({ kind: 'page', status: 200, pages: [] });
        expect(outcome.kind === 'page' && outcome.reason).toMatch(/rendered by script.*browser driver/);
      }
    },
    BROWSER_TEST_MS,
  );

  it(
    'consent with per-scope checkboxes: approving ticks every scope asked for; denying ticks none and is refused',
    async () => {
      const approved = await authorize(make(), 'psc', { scope: 'openid profile email' });
      expect(approved).toMatchObject({
        kind: 'redirect',
        params: { scope: 'openid profile email' },
        pages: ['login', 'consent'],
        consentShown: true,
      });
      const denied = await authorize(make(), 'psc', { scope: 'openid profile email' }, 'deny');
      expect(denied).toMatchObject({
        kind: 'redirect',
        params: { error: 'access_denied', state: 'st-1' },
        pages: ['login', 'consent'],
      });
    },
    BROWSER_TEST_MS,
  );

  it(
    'a script-driven deny: the browser clicks it; the form driver reports an error naming the browser driver and ' +
      'never approves',
    async () => {
      const approved = await authorize(make(), 'sdd');
      expect(approved).toMatchObject({
        kind: 'redirect',
        params: { code: expect.stringMatching(/^code-/) },
        pages: ['login', 'consent'],
      });
      const deny = authorize(make(), 'sdd', {}, 'deny');
      if (browser)
        expect(await deny).toMatchObject({
          kind: 'redirect',
          params: { error: 'access_denied', state: 'st-1' },
          pages: ['login', 'consent'],
        });
      else {
        await expect(deny).rejects.toThrow(PreconditionError);
        await expect(deny).rejects.toThrow(/deny control "Deny".*works by script.*never approve.*browser driver/);
      }
    },
    BROWSER_TEST_MS,
  );

  it(
    'a form_post response: the form aimed at the redirect_uri is read (POST, its fields), never sent to a client',
    async () => {
      const outcome = await authorize(make(), 'fp');
      expect(outcome).toMatchObject({
        kind: 'redirect',
        url: fx.redirectUri,
        method: 'POST',
        formFields: { code: expect.stringMatching(/^code-/), state: 'st-1' },
        params: { code: expect.stringMatching(/^code-/), state: 'st-1' },
        pages: ['login'],
      });
    },
    BROWSER_TEST_MS,
  );

  it(
    'an HTTP 403 with an empty body is an error page, not a failure to open it',
    async () => {
      const outcome = await authorize(make(), 'e403');
      expect(outcome).toMatchObject({ kind: 'page', status: 403, reason: 'an error page (HTTP 403)', pages: [] });
    },
    BROWSER_TEST_MS,
  );

  it(
    'a plain HTTP 200 page after the login that asks for nothing is marked asksNothing (a refusal by page)',
    async () => {
      const outcome = await authorize(make(), 'plain');
      expect(outcome).toMatchObject({ kind: 'page', status: 200, asksNothing: true, pages: ['login'] });
      expect(outcome.kind === 'page' && outcome.errorPage).toBeFalsy();
    },
    BROWSER_TEST_MS,
  );

  it(
    'a login host on a sibling subdomain whose cookie is for the parent domain',
    async () => {
      const outcome = await authorize(make(), 'sib');
      expect(outcome).toMatchObject({
        kind: 'redirect',
        params: { state: 'st-1', code: expect.stringMatching(/^code-/) },
        pages: ['login'],
      });
    },
    BROWSER_TEST_MS,
  );

  it(
    'a "Continue" after sign-in is no consent: the outcome says no consent page was shown (a remembered consent)',
    async () => {
      const outcome = await authorize(make(), 'rc');
      expect(outcome).toMatchObject({
        kind: 'redirect',
        params: { code: expect.stringMatching(/^code-/) },
        pages: ['login'],
        consentShown: false,
      });
    },
    BROWSER_TEST_MS,
  );

  it(
    'a device page without a form: the browser waits for the code input, types the code and decides; the form ' +
      'driver names the browser driver',
    async () => {
      for (const decision of ['approve', 'deny'] as const) {
        const userCode = fx.newDevice();
        const outcome = await make().activateDevice({ verificationUri: fx.url('dev'), userCode, decision });
        if (browser) {
          expect(outcome).toMatchObject({ decided: true, pages: ['user-code', 'login', 'consent'], headline: 'Done' });
          expect(fx.devices.get(userCode)).toBe(decision === 'approve' ? 'approved' : 'denied');
        } else {
          expect(outcome).toMatchObject({ decided: false, pages: [] });
          expect(outcome.reason).toMatch(/rendered by script.*browser driver/);
          expect(fx.devices.get(userCode)).toBe('pending');
        }
      }
    },
    BROWSER_TEST_MS,
  );

  it(
    'two hostile pages end as pages, read within the caps: 50,000 buttons, and an attribute that never closes',
    async () => {
      const huge = await authorize(make(), 'huge');
      expect(huge).toMatchObject({ kind: 'page', status: 200 });
      expect(huge.kind === 'page' && huge.reason).toMatch(/read the first 500 (of 50000 )?controls/);
      const unclosed = await authorize(make(), 'unclosed');
      expect(unclosed).toMatchObject({ kind: 'page', status: 200, pages: [] });
    },
    BROWSER_TEST_MS,
  );

  it(
    'a shared session carries the sign-in over to the next walk; a fresh one does not',
    async () => {
      const shared = new LoginSession();
      const d = make(shared);
      expect(await d.authorize(fx.url('sib', { state: 'a' }), [fx.redirectUri], { session: 'shared' })).toMatchObject({
        kind: 'redirect',
        pages: ['login'],
      });
      expect(await d.authorize(fx.url('sib', { state: 'b' }), [fx.redirectUri], { session: 'shared' })).toMatchObject({
        kind: 'redirect',
        pages: [],
      });
      expect(await d.authorize(fx.url('sib', { state: 'c' }), [fx.redirectUri], { session: 'fresh' })).toMatchObject({
        kind: 'redirect',
        pages: ['login'],
      });
      const own = new LoginSession();
      expect(await d.authorize(fx.url('sib', { state: 'd' }), [fx.redirectUri], { session: own })).toMatchObject({
        kind: 'redirect',
        pages: ['login'],
      });
      expect(await d.authorize(fx.url('sib', { state: 'e' }), [fx.redirectUri], { session: own })).toMatchObject({
        kind: 'redirect',
        pages: [],
      });
    },
    BROWSER_TEST_MS,
  );
});

describe('the browser driver and verification_uri_complete', () => {
  it(
    'opens it when offered (the code is prefilled and not typed again), and the plain URI when told not to',
    async () => {
      for (const useComplete of [true, false]) {
        const userCode = fx.newDevice();
        const outcome = await browserDriver().activateDevice({
          verificationUri: fx.url('dev'),
          verificationUriComplete: fx.url('dev', { user_code: userCode }),
          userCode,
          decision: 'approve',
          useComplete,
        });
        expect(outcome).toMatchObject({ decided: true, pages: ['user-code', 'login', 'consent'] });
        expect(fx.devices.get(userCode)).toBe('approved');
      }
    },
    BROWSER_TEST_MS,
  );
});

afterAll(() => {
  // No driver ever loaded the client's redirect_uri.
  expect(fx.redirectHits).toBe(0);
});
