/**
 * Pages modelled on LemonLDAP::NG's portal (portal-fixtures.ts), walked by both login drivers: a
 * consent whose Refuse works by script (the form driver approves through the form's default
 * button, and never denies), an error page served with HTTP 200 (an alert box), and the
 * re-authentication interstitial after max_age. Then the shared page walk's reading of error
 * boxes on its own: what counts as one, and what does not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HarnessError, PreconditionError } from '../../harness/model/failures.ts';
import { type AutoLoginOptions, AutoLoginDriver } from '../../harness/login/auto.ts';
import { BrowserLoginDriver } from '../../harness/login/browser.ts';
import { BrowserHost } from '../../harness/login/chromium.ts';
import type { AuthorizeOutcome, LoginDriver } from '../../harness/login/driver.ts';
import { FormLoginDriver } from '../../harness/login/form.ts';
import { LoginSession } from '../../harness/login/session.ts';
import type { LoginWalk } from '../../harness/model/results.ts';
import { readPage } from '../../harness/login/html.ts';
import { classify, whyNotSubmittable } from '../../harness/login/page.ts';
import { browserPart, loopbackHttp } from './driver-parts.ts';
import { USER } from './fixtures.ts';
import { type PortalFixtures, startPortalFixtures } from './portal-fixtures.ts';

const BROWSER_TEST_MS = 90_000;
const host = new BrowserHost();
let fx: PortalFixtures;
beforeAll(async () => {
  fx = await startPortalFixtures();
});
afterAll(async () => {
  await fx?.close();
  await host.close();
});

const http = loopbackHttp;
const browser = browserPart(host);
const fields = { usernameField: 'user', passwordField: 'password' };
const autoDriver = (o: Partial<AutoLoginOptions> = {}) =>
  new AutoLoginDriver({ http: http(), ...USER, ...fields, browser, ...o });

const DRIVERS: [string, () => LoginDriver][] = [
  ['form', () => new FormLoginDriver({ http: http(), ...USER, ...fields })],
  ['browser', () => new BrowserLoginDriver({ ...browser, ...USER })],
  ['auto', () => autoDriver()],
];

function authorize(
  d: LoginDriver,
  fixture: 'pc' | 'pe' | 'pr',
  consent: 'approve' | 'deny' = 'approve',
): Promise<AuthorizeOutcome> {
  return d.authorize(fx.url(fixture, { state: 'st-1' }), [fx.redirectUri], { consent });
}

describe.each(DRIVERS)('the %s driver on LemonLDAP::NG-like portal pages', (name, make) => {
  const browser = name === 'browser';
  /** It can press a control that works by script. */
  const scripts = name !== 'form';

  it(
    'approves the consent page whose Accept and Refuse submit the same form (Accept is its default button)',
    async () => {
      const outcome = await authorize(make(), 'pc');
      expect(outcome).toMatchObject({
        kind: 'redirect',
        params: { state: 'st-1', code: expect.stringMatching(/^code-/) },
        pages: ['login', 'consent'],
        consentShown: true,
      });
    },
    BROWSER_TEST_MS,
  );

  it(
    'denies there only in the browser (Refuse by script); the form driver is an error naming the browser driver',
    async () => {
      const denied = authorize(make(), 'pc', 'deny');
      if (scripts) {
        expect(await denied).toMatchObject({
          kind: 'redirect',
          params: { error: 'consent_required', state: 'st-1' },
          pages: ['login', 'consent'],
        });
      } else {
        await expect(denied).rejects.toThrow(PreconditionError);
        await expect(denied).rejects.toThrow(
          /deny control "Refuse".*submits exactly what "Accept" submits.*never approve instead.*browser driver/,
        );
      }
    },
    BROWSER_TEST_MS,
  );

  it(
    'takes the HTTP 200 page with a role="alert" error box for an error page',
    async () => {
      const outcome = await authorize(make(), 'pe');
      expect(outcome).toMatchObject({ kind: 'page', status: 200, errorPage: true, pages: [] });
      const says = browser ? '"Error"' : 'nothing yet \\(filled in by script\\)';
      expect(outcome.kind === 'page' && outcome.reason).toMatch(
        new RegExp(`^an error page \\(HTTP 200; a role="alert" box that says ${says}\\)$`),
      );
    },
    BROWSER_TEST_MS,
  );

  it(
    'goes on from the re-authentication interstitial ("Upgrade session") to the login form and back with a code',
    async () => {
      const outcome = await authorize(make(), 'pr');
      expect(outcome).toMatchObject({
        kind: 'redirect',
        params: { state: 'st-1', code: expect.stringMatching(/^code-/) },
        pages: ['login'],
      });
    },
    BROWSER_TEST_MS,
  );

  it('never loads the redirect_uri', () => {
    expect(fx.redirectHits).toBe(0);
  });
});

describe('the auto driver on the portal', () => {
  it(
    'signs in over HTTP and refuses in the browser from the same page with the same cookies; the next walk on the ' +
      'session is over HTTP again and finds the sign-in the browser handed back',
    async () => {
      const walks: LoginWalk[] = [];
      const session = new LoginSession();
      const d = autoDriver({ onWalk: (w) => walks.push(w) });
      const url = (state: string) => fx.url('pc', { state });
      const denied = await d.authorize(url('a'), [fx.redirectUri], { consent: 'deny', session });
      expect(denied).toMatchObject({
        kind: 'redirect',
        params: { error: 'consent_required', state: 'a' },
        pages: ['login', 'consent'],
      });
      expect(walks).toEqual([
        {
          kind: 'authorization',
          driver: 'auto',
          used: ['http', 'browser'],
          switched: {
            url: expect.stringMatching(/\/pc\/authorize$/),
            page: 'a consent page "Authentication portal" (HTTP 200)',
            reason: expect.stringMatching(/^the deny control "Refuse" is a button that submits exactly what "Accept"/),
          },
        },
      ]);
      // The portal's session cookie went from the jar into the browser (the refusal needs it) and back.
      const approved = await d.authorize(url('b'), [fx.redirectUri], { session });
      expect(approved).toMatchObject({ kind: 'redirect', params: { code: expect.any(String) }, pages: ['consent'] });
      expect(walks[1]).toEqual({ kind: 'authorization', driver: 'auto', used: ['http'] });
      // A later refusal on that page goes to the browser at once, as remembered.
      await d.authorize(url('c'), [fx.redirectUri], { consent: 'deny', session });
      expect(walks[2]?.switched).toMatchObject({ remembered: true, reason: /^as an earlier walk on this page: / });
    },
    BROWSER_TEST_MS,
  );

  it('without Chromium, approves over HTTP and fails only the refusal, naming Chromium', async () => {
    const d = autoDriver({ browserUnavailable: 'no Chromium was found (test)' });
    expect(await authorize(d, 'pc')).toMatchObject({ kind: 'redirect', params: { code: expect.any(String) } });
    const denied = authorize(d, 'pc', 'deny');
    await expect(denied).rejects.toThrow(HarnessError);
    await expect(denied).rejects.toThrow(
      new RegExp(
        /needs the browser on http:\/\/127\.0\.0\.1:\d+\/pc\/authorize \(HTTP 200\) \(the deny control "Refuse".*\), /
          .source + /and Chromium is not available: no Chromium was found/.source,
      ),
    );
  });
});

const read = (html: string, status = 200) => readPage(html, 'https://idp.test/page', status);

describe('error boxes in the shared page walk', () => {
  it('a role="alert" box with an error class or error wording makes a page that asks for nothing an error page', () => {
    expect(classify(read('<div role="alert" class="message-negative"></div><a href="/">Home</a>'))).toMatchObject({
      kind: 'error',
      alert: { role: true, errorClass: true, text: '' },
    });
    expect(classify(read('<div role=alert>The client is not allowed here</div>'))).toMatchObject({
      kind: 'error',
      alert: { text: 'The client is not allowed here' },
    });
    expect(classify(read('<p class="alert alert-danger">Unknown application</p>'))).toMatchObject({ kind: 'error' });
  });

  it('an empty live region, a hidden box, a <noscript> message or a box on a login page is no error page', () => {
    expect(classify(read('<div role="alert"></div><p>Loading</p>')).kind).toBe('other');
    expect(classify(read('<div role="alert">Saved</div>')).kind).toBe('other');
    expect(classify(read('<div class="alert-danger d-none">Invalid</div>')).kind).toBe('other');
    expect(classify(read('<div class="error" hidden>Invalid</div>')).kind).toBe('other');
    expect(classify(read('<div style="display:none"><p role=alert>Error</p></div>')).kind).toBe('other');
    expect(classify(read('<noscript><div class="alert alert-danger">Enable JavaScript</div></noscript>')).kind).toBe(
      'other',
    );
    const login = read(
      '<div role=alert class=error>Wrong password</div>' +
        '<form method=post><input name=u><input type=password name=p></form>',
    );
    expect(classify(login).kind).toBe('login');
  });

  it('a consent page with an error box stays a consent page', () => {
    const cls = classify(
      read(
        '<div role=alert class=error>Choose at least one</div><p>App wants access</p>' +
          '<form method=post><button name=a value=1>Allow</button><button name=a value=0>Deny</button></form>',
      ),
    );
    expect(cls.kind).toBe('consent');
  });
});

describe('pressing one of two buttons that submit the same thing', () => {
  const page = (first: string, second: string) =>
    read(`<p>App wants access</p><form method=post><input type=hidden name=c value=1>${first}${second}</form>`);

  it('approve may be pressed when it is the default button; deny never', () => {
    const model = page('<button>Accept</button>', '<button id=refuse>Refuse</button>');
    const cls = classify(model);
    if (cls.kind !== 'consent') throw new Error(`not a consent page: ${cls.kind}`);
    expect(whyNotSubmittable(cls.approve!, cls.deny, model)).toBeUndefined();
    expect(whyNotSubmittable(cls.deny!, cls.approve, model)).toMatch(/submits exactly what "Accept" submits/);
  });

  it('approve that comes second (not the default button) is not pressed either', () => {
    const model = page('<button id=refuse>Refuse</button>', '<button>Accept</button>');
    const cls = classify(model);
    if (cls.kind !== 'consent') throw new Error(`not a consent page: ${cls.kind}`);
    expect(whyNotSubmittable(cls.approve!, cls.deny, model)).toMatch(/submits exactly what "Refuse" submits/);
  });
});

describe('interstitials', () => {
  it('an icon-only button does not make a lone "Upgrade session" button one of two choices', () => {
    const cls = classify(
      read(
        '<form method=post action=/renew><button type=submit>Upgrade session</button></form>' +
          '<button type=button id=top><i class="fa fa-arrow-up"></i></button>',
      ),
    );
    expect(cls).toMatchObject({ kind: 'continue', submit: { text: 'Upgrade session' } });
  });
});
