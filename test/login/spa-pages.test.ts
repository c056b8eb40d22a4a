/**
 * Pages modelled on a single-page-app sign-in (spa-fixtures.ts), walked by both login drivers:
 * - the page an already signed-in user gets ("signed in as alice — Continue / Logout") is no error page: Logout is an
 *   account control, not an error box, and Continue is its one choice;
 * - a walk from a shared session whose configured steps do not fit the signed-in page is done again on a fresh session
^ *   (flows/flows.ts, sharedOrFresh), and the walk record says so;
 * - what a walk throws names the page, the element and the step: a button that is never clickable, a page that
 *   navigates away as its button is pressed, a dropped connection, a form action that is not a URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HarnessError, PreconditionError, TargetUnreachableError } from '../../harness/model/failures.ts';
import { HttpClient } from '../../harness/http/client.ts';
import { Recorder } from '../../harness/http/recorder.ts';
import { AutoLoginDriver } from '../../harness/login/auto.ts';
import { BrowserLoginDriver } from '../../harness/login/browser.ts';
import { BrowserHost } from '../../harness/login/chromium.ts';
import type { AuthorizeOptions, AuthorizeOutcome, LoginDriver } from '../../harness/login/driver.ts';
import { FormLoginDriver } from '../../harness/login/form.ts';
import { readPage } from '../../harness/login/html.ts';
import { classify } from '../../harness/login/page.ts';
import { LoginSession } from '../../harness/login/session.ts';
import { Redactor } from '../../harness/redact/redact.ts';
import { sharedOrFresh } from '../../harness/flows/flows.ts';
import { loopbackFetch } from '../support/loopback-fetch.ts';
import { USER } from './fixtures.ts';
import { type SpaFixture, type SpaFixtures, signedInPage, startSpaFixtures } from './spa-fixtures.ts';

const BROWSER_TEST_MS = 120_000;
/** Per navigation and required step: short enough that a button that is never clickable fails soon, generous still. */
const STEP_MS = 4_000;
const host = new BrowserHost();
let fx: SpaFixtures;
beforeAll(async () => {
  fx = await startSpaFixtures();
});
afterAll(async () => {
  await fx?.close();
  await host.close();
});

const formDriver = (): LoginDriver =>
  new FormLoginDriver({
    http: new HttpClient({ recorder: new Recorder(new Redactor()), fetch: loopbackFetch, requestTimeoutMs: 20_000 }),
    ...USER,
  });
const browserDriver = (extra: Partial<ConstructorParameters<typeof BrowserLoginDriver>[0]> = {}): LoginDriver =>
  new BrowserLoginDriver({
    newContext: (state) => host.newContext(state),
    ...USER,
    timeoutMs: STEP_MS,
    recorder: { screenshot: async () => undefined, transcript: () => undefined },
    ...extra,
  });
const autoDriver = (): LoginDriver =>
  new AutoLoginDriver({
    http: new HttpClient({ recorder: new Recorder(new Redactor()), fetch: loopbackFetch, requestTimeoutMs: 20_000 }),
    ...USER,
    browser: {
      newContext: (state) => host.newContext(state),
      timeoutMs: STEP_MS,
      recorder: { screenshot: async () => undefined, transcript: () => undefined },
    },
  });
const DRIVERS: [string, () => LoginDriver][] = [
  ['form', formDriver],
  ['browser', () => browserDriver()],
  ['auto', autoDriver],
];

const authorize = (d: LoginDriver, fixture: SpaFixture, options: AuthorizeOptions = {}): Promise<AuthorizeOutcome> =>
  d.authorize(fx.url(fixture, { state: 'st-1' }), [fx.redirectUri], options);

/** What a walk ended with: its outcome, or what it threw. */
async function settle(walk: Promise<AuthorizeOutcome>): Promise<AuthorizeOutcome | Error> {
  return walk.catch((error: unknown) => error as Error);
}

describe('the signed-in page of a single-page-app sign-in (read by the shared page walk)', () => {
  const model = readPage(signedInPage('s', '/gs/continue'), 'https://idp.test/login', 200);

  it('is an interstitial whose one choice is Continue: Logout, Change user and the user menu are no choices', () => {
    expect(classify(model)).toMatchObject({ kind: 'continue', submit: { text: 'Continue' } });
  });

  it('is no error page: a "Logout" button styled btn-danger is no error box', () => {
    expect(model.alerts).toEqual([expect.objectContaining({ errorClass: true, text: 'Logout' })]);
    expect(classify(model).kind).not.toBe('error');
  });
});

describe('error boxes are evidence only when they read as an error', () => {
  const read = (html: string) => readPage(html, 'https://idp.test/page', 200);

  it('an account or navigation control is never evidence, whatever its class or role', () => {
    for (const html of [
      '<button class="btn btn-danger">Logout</button>',
      '<a class="btn btn-danger" href="/logout">Sign out</a>',
      '<div class="alert alert-danger">Change user</div>',
      '<div role="alert" class="error">Log out</div>',
    ])
      expect(classify(read(html)).kind, html).not.toBe('error');
  });

  it('a box whose class alone names an error must say one; role="alert" with an error class needs no words', () => {
    expect(classify(read('<div class="alert alert-danger">Delete</div>')).kind).toBe('other');
    expect(classify(read('<div class="alert alert-danger">Invalid client</div>')).kind).toBe('error');
    expect(classify(read('<div role="alert" class="message-negative"></div>')).kind).toBe('error');
    expect(classify(read('<div role="alert">Access denied</div>')).kind).toBe('error');
  });
});

describe.each(DRIVERS)('the %s driver', (name, make) => {
  it(
    'goes on from the signed-in page by Continue to the redirect with a code (no login, no error page)',
    async () => {
      const outcome = await authorize(make(), 'gs');
      expect(outcome).toMatchObject({
        kind: 'redirect',
        params: { state: 'st-1', code: expect.stringMatching(/^code-/) },
      });
      expect(outcome.pages).toEqual([]);
    },
    BROWSER_TEST_MS,
  );

  it(
    'ends a walk whose page navigates elsewhere as its button is pressed with an outcome, or an error naming the step',
    async () => {
      const ended = await settle(authorize(make(), 'sn'));
      if (ended instanceof Error) {
        expect(ended).toBeInstanceOf(HarnessError);
        expect(ended.message).toMatch(new RegExp(`the ${name} login driver could not go on while .+ on `));
      } else expect(['redirect', 'page']).toContain(ended.kind);
    },
    BROWSER_TEST_MS,
  );
});

describe('what a walk throws names the page, the element and the step', () => {
  it(
    'browser: a "Sign in" button that is found but never clickable (an overlay covers it) is a PreconditionError',
    async () => {
      const ended = await settle(authorize(browserDriver(), 'st'));
      expect(ended).toBeInstanceOf(PreconditionError);
      expect((ended as Error).message).toMatch(
        new RegExp(
          /^the browser login driver could not go on while submitting the login form, at the button "Sign in" /.source +
            /on "Sign in" \(http:\/\/127\.0\.0\.1:\d+\/st\/authorize\): /.source +
            /the element was found but did not become visible, enabled and clickable in time/.source,
        ),
      );
    },
    BROWSER_TEST_MS,
  );

  it(
    'browser: a "Sign in" button disabled once the form is filled, never enabled again, is a PreconditionError',
    async () => {
      const ended = await settle(authorize(browserDriver(), 'sd'));
      expect(ended).toBeInstanceOf(PreconditionError);
      expect((ended as Error).message).toMatch(
        /while submitting the login form, at the button "Sign in" on "Sign in" .*: the element was found but did not/,
      );
    },
    BROWSER_TEST_MS,
  );

  it('form: the same page is no trouble over HTTP (it presses nothing, it submits the form)', async () => {
    expect(await authorize(formDriver(), 'st')).toMatchObject({ kind: 'redirect', params: { state: 'st-1' } });
  });

  it('form: a connection dropped on the login POST stays "the target stopped answering", with where', async () => {
    const ended = await settle(authorize(formDriver(), 'sb'));
    expect(ended).toBeInstanceOf(TargetUnreachableError);
    expect((ended as Error).message).toMatch(
      /\/sb\/login: .*\(the form login driver, while submitting the login form, at the button "Sign in" on "Sign in"/,
    );
  });

  it('form: a form action that is not a URL is a PreconditionError naming the page', async () => {
    const ended = await settle(authorize(formDriver(), 'sx'));
    expect(ended).toBeInstanceOf(PreconditionError);
    expect((ended as Error).message).toMatch(
      new RegExp(
        /^the form login driver could not go on while submitting the login form, at the button "Sign in" on "Sign in" /
          .source + /\(http:\/\/127\.0\.0\.1:\d+\/sx\/authorize\): a URL on the page could not be parsed/.source,
      ),
    );
  });
});

describe('a walk from the shared session that meets a signed-in page its steps do not fit', () => {
  it(
    'answers it by its Continue without running the steps, and is not done again (test/harness/shared-walk.test.ts ' +
      'holds the walks that are)',
    async () => {
      const shared = new LoginSession('the run');
      const driver = browserDriver({
        sharedSession: shared,
        steps: [
          { fill: '#username', value: '${user.username}', timeoutMs: 5_000 },
          { fill: '#password', value: '${user.password}', timeoutMs: 5_000 },
          { click: '#signin', timeoutMs: 5_000 },
        ],
      });
      const records: string[] = [];
      const walk = (options: AuthorizeOptions) => authorize(driver, 'gl', options);
      // The first walk signs in on the shared session (the single-page app's form, posted by fetch).
      const first = await sharedOrFresh({ session: 'shared' }, shared, walk, (r) => records.push(r));
      expect(first).toMatchObject({ kind: 'redirect', params: { code: expect.stringMatching(/^code-/) } });
      expect(first.pages).toContain('login');
      // The second finds "signed in as alice" (no #username): rendered, it is a Continue page, answered as such.
      const second = await sharedOrFresh({ session: 'shared' }, shared, walk, (r) => records.push(r));
      expect(second).toMatchObject({ kind: 'redirect', params: { code: expect.stringMatching(/^code-/) } });
      expect(second.pages).not.toContain('login');
      expect(records).toEqual([]);
    },
    BROWSER_TEST_MS,
  );
});
