/**
 * The shared page walk (harness/login/page.ts) on pages read by the form driver's reader: what a
 * page is, which control each decision uses, and when the form driver may not press a control.
 */
import { describe, expect, it } from 'vitest';
import { readPage } from '../../harness/login/html.ts';
import { MAX_CONTROLS, MAX_METAS, MAX_REFERENCES, classify, whyNotSubmittable } from '../../harness/login/page.ts';
import { GLEWLWYD_MENUS } from './glewlwyd-fixtures.ts';

const read = (html: string, status = 200) => readPage(html, 'https://idp.test/page', status);

describe('what a page is', () => {
  it('reads German pages: identifier first, login, consent, interstitial and error (variant locale-de)', () => {
    const identifier = classify(
      read('<form method=post><label for=u>Kennung</label><input id=u name=kennung><button>Weiter</button></form>'),
    );
    expect(identifier).toMatchObject({ kind: 'identifier', username: { name: 'kennung' }, submit: { text: 'Weiter' } });
    // Keycloak's consent form in German: two submit inputs named accept and cancel, "Ja" and "Nein".
    const consent = classify(
      read(
        '<h1>Zugriff gewähren</h1><p>Die Anwendung möchte auf Ihr Profil zugreifen.</p><form method=post>' +
          '<input type=submit name=accept value=Ja><input type=submit name=cancel value=Nein></form>',
      ),
    );
    expect(consent).toMatchObject({ kind: 'consent', approve: { value: 'Ja' }, deny: { value: 'Nein' } });
    const worded = classify(
      read(
        '<p>Beispiel bittet um Zugriff auf Ihre E-Mail-Adresse.</p><form method=post>' +
          '<button name=e value=1>Zulassen</button><button name=e value=0>Nicht zulassen</button></form>',
      ),
    );
    expect(worded).toMatchObject({ kind: 'consent', approve: { value: '1' }, deny: { value: '0' } });
    const again = classify(
      read('<p>Ihre Sitzung ist abgelaufen.</p><form method=post><button>Erneut anmelden</button>'),
    );
    expect(again).toMatchObject({ kind: 'continue' });
    const error = classify(read('<div class=alert role=alert>Der Code ist ungültig.</div><a href=/>Startseite</a>'));
    expect(error).toMatchObject({ kind: 'error', alert: { text: 'Der Code ist ungültig.' } });
    const signedIn = classify(read('<p>Angemeldet als alice</p><form method=post><button>Abmelden</button></form>'));
    expect(signedIn.kind).toBe('other');
  });

  it('a lone "Continue" on a page that asks for nothing is an interstitial, not a consent', () => {
    expect(classify(read('<h1>Welcome back</h1><form method=post><button>Continue</button></form>')).kind).toBe(
      'continue',
    );
  });

  it('a consent page asks for access: wording and a choice, or both choices', () => {
    const worded = classify(
      read('<h1>App wants to access your profile</h1><form method=post><button>Continue</button></form>'),
    );
    expect(worded).toMatchObject({ kind: 'consent', approve: { text: 'Continue' } });
    const choice = classify(
      read(
        '<h1>Hello</h1><form method=post><button name=d value=yes>Yes</button><button name=d ' +
          'value=no>No</button></form>',
      ),
    );
    expect(choice).toMatchObject({ kind: 'consent', approve: { value: 'yes' }, deny: { value: 'no' } });
  });

  it('per-scope checkboxes are the choices an approving user ticks', () => {
    const cls = classify(
      read(
        `<p>Example wants permission to see:</p><form method=post><input type=checkbox name=s value=a checked>
      <input type=checkbox name=s value=b><input type=checkbox name=s value=c hidden><button name=x ` +
          `value=allow>Allow</button><button name=x value=deny>Deny</button></form>`,
      ),
    );
    expect(cls.kind === 'consent' && cls.choices.map((c) => c.value)).toEqual(['b']);
  });

  it('an error status is an error page, unless it asks for the password, the code or the user again', () => {
    expect(classify(read('<h1>Forbidden</h1>', 403)).kind).toBe('error');
    expect(classify(read('', 403)).kind).toBe('error');
    expect(classify(read('<form><input name=user_code><button>Go</button></form>', 400)).kind).toBe('user-code');
    expect(classify(read('<form><input name=u><input type=password name=p><button>Go</button></form>', 401)).kind).toBe(
      'login',
    );
  });

  it(
    'a lone text input is the user code only where one is expected; else the identifier of an ' +
      'identifier-first login',
    () => {
      const page = read('<form method=post><input name=entry><button>Next</button></form>');
      expect(classify(page, { wantsUserCode: true }).kind).toBe('user-code');
      expect(classify(page).kind).toBe('identifier');
    },
  );

  it('the submit next to an input is never a menu button; one disabled until the input is filled in still is', () => {
    // Glewlwyd 2.7.5's device page as Chromium shows it at 800 px: the language menu collapsed, the navbar toggler
    // shown, the code input in no form, and "OK" disabled until a code is typed in.
    const toggler =
      '<button class="navbar-toggler" type="button" aria-expanded="false" aria-label="Toggle navigation"></button>';
    const page = read(
      `${toggler}<h2>Please enter the code</h2><input type="text" maxlength="9" placeholder="X1Y2-A3B4">` +
        '<button type="button" class="btn btn-primary" disabled>OK</button>',
    );
    expect(classify(page, { wantsUserCode: true })).toMatchObject({ kind: 'user-code', submit: { text: 'OK' } });
    // With only the menu button, nothing submits the input (the walk presses Enter in it).
    const menuOnly = read(`<input type="text" placeholder="X1Y2-A3B4">${toggler}`);
    const cls = classify(menuOnly, { wantsUserCode: true });
    expect(cls.kind).toBe('user-code');
    expect(cls.kind === 'user-code' && cls.submit).toBeUndefined();
    // The page after the device is approved (login.html?prompt=deviceComplete): a message and the navbar's menu button
    // only. Nothing is left to do there: the activation is over.
    expect(classify(read(`${toggler}<h4>The device is connected</h4>`))).toEqual({ kind: 'other', controls: false });
    expect(classify(read(`${toggler}<h4>Sign out?</h4><button>Logout</button>`))).toEqual({
      kind: 'other',
      controls: false,
    });
    expect(classify(read(`${toggler}<h4>Next</h4><button>Go on</button>`))).toEqual({ kind: 'other', controls: true });
    // Over HTTP a disabled button cannot be pressed: only a script enables it.
    const ok = page.controls.find((c) => c.text === 'OK')!;
    expect(whyNotSubmittable(ok)).toBe('a disabled button that a script enables');
  });

  it('a menu or disclosure button (aria-haspopup, aria-expanded) is navigation: Continue stays the one choice', () => {
    // Glewlwyd 2.7.5's signed-in footer: Continue, Logout with its split toggle, and the menu buttons "Manage" and
    // "Change user" (GLEWLWYD_MENUS, as Chromium read them from the Debian package's login app).
    const footer =
      '<h4>Hello Alice</h4><h4>What do you wish for?</h4><button type="button" class="btn btn-success">Continue' +
      '</button><button type="button" class="btn btn-danger">Logout</button><button type="button" ' +
      'class="btn btn-danger dropdown-toggle" aria-haspopup="true"></button>';
    const toggler =
      '<button class="navbar-toggler" type="button" aria-expanded="false" aria-label="Toggle navigation"></button>';
    const model = read(toggler + footer + GLEWLWYD_MENUS);
    expect(model.controls.find((c) => c.text === 'Manage')).toMatchObject({ menu: true });
    expect(model.controls.find((c) => c.text === 'Toggle navigation')).toMatchObject({ menu: true });
    expect(classify(model)).toMatchObject({ kind: 'continue', submit: { text: 'Continue' } });
    // The same buttons without those states (or with aria-haspopup="false") are choices: the page is nothing known.
    const plain = GLEWLWYD_MENUS.replaceAll(' aria-expanded="false"', '');
    expect(classify(read(toggler + footer + plain.replaceAll(' aria-haspopup="true"', ''))).kind).toBe('other');
    expect(classify(read(toggler + footer + plain.replaceAll('"true"', '"false"'))).kind).toBe('other');
  });

  it('hidden and disabled controls are not offered', () => {
    const cls = classify(
      read(
        '<form method=post><input type=password name=p style="display:none"><div hidden><input type=password ' +
          'name=q></div><button disabled>Sign in</button></form>',
      ),
    );
    expect(cls).toEqual({ kind: 'other', controls: false });
  });
});

describe('what the form driver may press', () => {
  it('not a script-driven button, nor one whose submission equals the other choice', () => {
    const p = read(
      `<form method=post id=f><button>Allow</button><button>Deny</button></form><button type=button ` +
        `onclick="x()">Cancel</button>
      <form method=post><button name=d value=1>Yes</button><button name=d value=1>No</button></form><a ` +
        `href="javascript:void 0">Decline</a>`,
    );
    const [allow, deny, cancel, yes, no, decline] = p.controls;
    expect(whyNotSubmittable(deny!, allow)).toMatch(
      /submits exactly what "Allow" submits \(same form, neither has a name\)/,
    );
    expect(whyNotSubmittable(cancel!)).toBe('a button control that works by script');
    expect(whyNotSubmittable(no!, yes)).toMatch(/same name and value/);
    expect(whyNotSubmittable(decline!)).toBe('a link that works by script');
  });

  it('a named deny, a deny in a form of its own, and a plain link are pressable', () => {
    const p =
      read(`<form method=post><button name=a value=allow>Allow</button><button name=a value=deny>Deny</button></form>
      <form method=post action=/no><button>Deny</button></form><a href="/cancel">Cancel</a>`);
    const [allow, deny, own, link] = p.controls;
    expect(whyNotSubmittable(deny!, allow)).toBeUndefined();
    expect(whyNotSubmittable(own!, allow)).toBeUndefined();
    expect(whyNotSubmittable(link!)).toBeUndefined();
  });
});

describe('the reader on hostile pages (linear time, capped collection)', () => {
  it('reads at most MAX_CONTROLS controls of 50,000 and says it cut the page', () => {
    const page = read(`<form>${'<button name=b>x</button>'.repeat(50_000)}</form>`);
    expect(page.controls).toHaveLength(MAX_CONTROLS);
    expect(page.truncated).toBe(`read the first ${MAX_CONTROLS} controls; the rest of the page was not read`);
  });

  it('reads a page whose attribute never closes, and a page nested 200,000 deep, without error', () => {
    expect(read(`<form><input name=a value="${'x'.repeat(2_000_000)}`).controls).toEqual([]);
    const deep = read(`${'<div>'.repeat(200_000)}<form><input type=password name=p></form>`);
    expect(deep.controls).toHaveLength(1);
  });
});

describe('meta tags, read as a browser reads them', () => {
  it('reads name and http-equiv metas, not those in comments, scripts or attribute text', async () => {
    const { metaRefresh } = await import('../../suites/checks/meta-refresh.ts');
    const html =
      '<!doctype html><head><!-- <meta name="referrer" content="unsafe-url"> -->' +
      '<script>document.write(\'<meta http-equiv="refresh" content="0; url=https://evil.example/">\')</script>' +
      '<meta NAME="Referrer" content="no-referrer"><meta charset="utf-8">' +
      '<meta http-equiv="Refresh" content="5;URL=\'/next?x=1\'"></head>' +
      '<body><p title=\'<meta http-equiv="refresh" content="0;url=https://evil.example/">\'>hi</p></body>';
    const page = readPage(html, 'https://idp.example/a/b', 200);
    expect(page.metas).toEqual([
      { name: 'referrer', content: 'no-referrer' },
      { httpEquiv: 'refresh', content: "5;URL='/next?x=1'" },
    ]);
    expect(metaRefresh(html, 'https://idp.example/a/b')).toBe('https://idp.example/next?x=1');
    expect(metaRefresh('<meta http-equiv="refresh" content="0">', 'https://idp.example/')).toBeUndefined();
  });

  it('reads at most MAX_METAS of them', () => {
    const page = readPage('<meta name="x" content="y">'.repeat(10_000), 'https://idp.example/', 200);
    expect(page.metas).toHaveLength(MAX_METAS);
  });
});

describe('references, read as a browser reads them (headers.referrer-policy)', () => {
  it('reads what the page loads and links, with rel=noreferrer and referrerpolicy, not text in scripts', () => {
    const html =
      '<!doctype html><head><link rel="stylesheet" href="https://cdn.example/s.css">' +
      '<link rel="canonical" href="https://idp.example/login"><script src="/app.js"></script>' +
      '<script>var a = \'<img src="https://evil.example/x.png">\';</script></head>' +
      '<body><img src="https://img.example/logo.png" referrerpolicy="No-Referrer">' +
      '<a href="https://docs.example/help" rel="noopener NoReferrer">Help</a><a href="#top">Top</a>' +
      '<form action="https://other.example/post"></form><input type="image" src="/go.png"></body>';
    const page = readPage(html, 'https://idp.example/a', 200);
    expect(page.references).toEqual([
      { kind: 'load', tag: 'link', url: 'https://cdn.example/s.css', noreferrer: false },
      { kind: 'link', tag: 'link', url: 'https://idp.example/login', noreferrer: false },
      { kind: 'load', tag: 'script', url: '/app.js', noreferrer: false },
      {
        kind: 'load',
        tag: 'img',
        url: 'https://img.example/logo.png',
        noreferrer: false,
        referrerPolicy: 'no-referrer',
      },
      { kind: 'link', tag: 'a', url: 'https://docs.example/help', noreferrer: true },
      { kind: 'link', tag: 'a', url: '#top', noreferrer: false },
      { kind: 'link', tag: 'form', url: 'https://other.example/post', noreferrer: false },
      { kind: 'load', tag: 'input', url: '/go.png', noreferrer: false },
    ]);
  });

  it('reads at most MAX_REFERENCES of them', () => {
    const page = readPage('<img src="https://x.example/a.png">'.repeat(10_000), 'https://idp.example/', 200);
    expect(page.references).toHaveLength(MAX_REFERENCES);
  });
});
