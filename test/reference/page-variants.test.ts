/**
 * The page variants of the reference (reference/variants.ts, docs/fixture.md "Variants"): what each page looks like
 * and what each refuses, with the variant on (and, where it matters, off).
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { formValues, readPage } from '../../harness/login/html.ts';
import { classify } from '../../harness/login/page.ts';
import type { FlawName, VariantName } from '../../reference/index.ts';
import { type Page, UserAgent, formAction, startDevice } from './device-helpers.ts';
import { SPA, WEB, type ReferenceClient, s256, startReference } from '../support/reference-client.ts';
import { SEEDED_USER } from '../../reference/index.ts';

let idp: ReferenceClient | undefined;
afterEach(async () => {
  await idp?.close();
  idp = undefined;
});

/** A reference with these variants and flaws; closed after the test (one at a time). */
async function start(variants: VariantName[] = [], flaws: FlawName[] = []): Promise<ReferenceClient> {
  await idp?.close();
  idp = await startReference({ variants, flaws });
  return idp;
}

/** GET /auth for `client` (S256 PKCE), in `agent`'s cookie jar. */
function authorize(client: ReferenceClient, agent: UserAgent, who = SPA, extra: Record<string, string> = {}) {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: who.clientId,
    redirect_uri: who.redirectUris[0]!,
    scope: 'openid profile',
    state: 's-1',
    code_challenge: s256('v'.repeat(43)),
    code_challenge_method: 'S256',
    ...extra,
  });
  return agent.get(`${client.issuer}/auth?${query}`);
}

/** The page's form fields as the form driver would submit them (hidden ones included), with `fill` over them. */
function fields(page: Page, url: string, fill: Record<string, string>): Record<string, string> {
  const model = readPage(page.html, url, page.status);
  return { ...Object.fromEntries(formValues(model, 0)), ...fill };
}

/** A code request with response_mode=form_post as the confidential client: the form_post page. */
const formPostResponse = (idp: ReferenceClient) =>
  idp.authorize({
    client: WEB,
    query: {
      response_type: 'code',
      response_mode: 'form_post',
      scope: 'openid',
      code_challenge: s256('v'.repeat(43)),
      code_challenge_method: 'S256',
    },
  });

const model = (page: Page, url = 'http://idp/') => readPage(page.html, url, page.status);
const PASSWORD = { username: SEEDED_USER.username, password: SEEDED_USER.password };

describe('variant two-step-login', () => {
  it('asks for the user name alone, then for the password on the next page', async () => {
    const idp = await start(['two-step-login']);
    const agent = new UserAgent();
    const first = await authorize(idp, agent);
    expect(first.status).toBe(200);
    expect(first.html).toContain('name="username"');
    expect(first.html).not.toContain('type="password"');
    expect(classify(model(first)).kind).toBe('identifier');
    const second = await agent.submit(first, { username: SEEDED_USER.username });
    expect(second.status).toBe(200);
    expect(second.html).toMatch(/<input type="password"[^>]* name="password"/);
    expect(second.html).toContain(`<input type="hidden" name="username" value="${SEEDED_USER.username}">`);
    expect(classify(model(second)).kind).toBe('login');
    const wrong = await agent.submit(second, { username: SEEDED_USER.username, password: 'wrong' });
    expect(wrong.status).toBe(200);
    expect(wrong.html).toContain('role="alert"');
    const done = await agent.submit(second, { username: SEEDED_USER.username, password: SEEDED_USER.password });
    expect(done.status).toBe(303);
  });

  it('is off by default: one page asks for both', async () => {
    const idp = await start();
    const page = await authorize(idp, new UserAgent());
    expect(page.html).toContain('name="username"');
    expect(page.html).toContain('type="password"');
  });
});

describe('variant locale-de', () => {
  it('shows the login, consent, error, activation, logout and form_post pages in German', async () => {
    const idp = await start(['locale-de']);
    const agent = new UserAgent();
    const login = await authorize(idp, agent);
    expect(login.html).toContain('<html lang="de">');
    expect(login.html).toContain('<button type="submit">Anmelden</button>');
    expect(login.html).toContain('>Benutzername</label>');
    expect(login.html).toContain('>Passwort</label>');
    const wrong = await agent.submit(login, { username: 'alice', password: 'wrong' });
    expect(wrong.html).toContain('Benutzername oder Passwort ist ungültig.');
    const afterLogin = await agent.submit(login, PASSWORD);
    const consent = await agent.get(new URL(afterLogin.location!, idp.issuer).href);
    expect(consent.html).toContain('name="entscheidung" value="zulassen" autofocus>Zulassen</button>');
    expect(consent.html).toContain('name="entscheidung" value="ablehnen" class="secondary">Ablehnen</button>');
    expect(consent.html).toContain('Zugriff gewähren');
    expect(classify(model(consent)).kind).toBe('consent');
    const error = await agent.get(`${idp.issuer}/auth?client_id=nobody`);
    expect(error.html).toContain('Es ist ein Fehler aufgetreten');
    const activation = await agent.get(`${idp.issuer}/activate`);
    expect(activation.html).toContain('Gerät verbinden');
    const logout = await agent.get(`${idp.issuer}/session/end`);
    expect(logout.html).toMatch(/Abmelden\?|Sie sind abgemeldet/);
    const formPost = await formPostResponse(idp);
    expect(formPost.page?.html).toContain('<title>Formular absenden</title>');
  });
});

describe('variant csrf-forms', () => {
  it('puts a token bound to a cookie in the login and consent forms', async () => {
    const idp = await start(['csrf-forms']);
    const agent = new UserAgent();
    const login = await authorize(idp, agent);
    const token = /name="csrf_token" value="([^"]+)"/.exec(login.html)?.[1];
    expect(token).toMatch(/^[\w-]{20,}$/);
    expect(login.headers.getSetCookie().join('\n')).toContain(`idpc_csrf=${token}`);
    const afterLogin = await agent.submit(login, fields(login, idp.issuer, PASSWORD));
    expect(afterLogin.status).toBe(303);
    const consent = await agent.get(new URL(afterLogin.location!, idp.issuer).href);
    expect(consent.html).toContain(`name="csrf_token" value="${token}"`);
    const done = await agent.submit(consent, fields(consent, idp.issuer, { decision: 'approve' }));
    expect(done.status).toBe(303);
    expect(done.location).toMatch(/^https:\/\/spa\.example\.test\/callback\?code=/);
  });

  it('refuses a POST without the token, with a wrong one or without the cookie: an error page, not a 500', async () => {
    const idp = await start(['csrf-forms']);
    const agent = new UserAgent();
    const login = await authorize(idp, agent);
    const action = formAction(login.html);
    const token = /name="csrf_token" value="([^"]+)"/.exec(login.html)![1]!;
    const missing = await agent.post(action, PASSWORD);
    expect(missing.status).toBe(403);
    expect(missing.html).toContain('role="alert"');
    const wrong = await agent.post(action, { ...PASSWORD, csrf_token: `${token}x` });
    expect(wrong.status).toBe(403);
    // The interaction cookie without the CSRF cookie: the token alone is not enough.
    const interaction = agent.session
      .cookieHeader(action)!
      .split('; ')
      .filter((c) => !c.startsWith('idpc_csrf='));
    const noCookie = await fetch(action, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: interaction.join('; ') },
      body: new URLSearchParams({ ...PASSWORD, csrf_token: token }),
    });
    expect(noCookie.status).toBe(403);
    // Without the variant the same POST is taken.
    const plain = await start();
    const plainAgent = new UserAgent();
    const plainLogin = await authorize(plain, plainAgent);
    expect((await plainAgent.submit(plainLogin, PASSWORD)).status).toBe(303);
  });
});

describe('variant remember-consent', () => {
  it('asks for consent once per client and scope; prompt=consent and a wider scope ask again', async () => {
    const idp = await start(['remember-consent']);
    const walk = async (extra: Record<string, string> = {}) => {
      const agent = new UserAgent();
      const login = await authorize(idp, agent, SPA, extra);
      const after = await agent.submit(login, PASSWORD);
      expect(after.status).toBe(303);
      return after.location!.startsWith(idp.issuer) ? 'consent' : 'code';
    };
    expect(await walk()).toBe('consent');
    // Approve it once.
    const agent = new UserAgent();
    const login = await authorize(idp, agent);
    const after = await agent.submit(login, PASSWORD);
    const consent = await agent.get(new URL(after.location!, idp.issuer).href);
    expect((await agent.submit(consent, { decision: 'approve' })).location).toMatch(/code=/);
    expect(await walk()).toBe('code');
    expect(await walk({ prompt: 'consent' })).toBe('consent');
    expect(await walk({ scope: 'openid profile offline_access' })).toBe('consent');
  });

  it('is off by default: a new sign-in asks again', async () => {
    const idp = await start();
    for (let i = 0; i < 2; i++) {
      const result = await idp.authorize({
        client: SPA,
        query: {
          response_type: 'code',
          scope: 'openid',
          code_challenge: s256('v'.repeat(43)),
          code_challenge_method: 'S256',
        },
      });
      expect(result.consentShown).toBe(true);
    }
  });

  it('still asks nothing under flaw consent-skipped, even with prompt=consent', async () => {
    const idp = await start(['remember-consent'], ['consent-skipped']);
    const agent = new UserAgent();
    const login = await authorize(idp, agent, SPA, { prompt: 'consent' });
    expect((await agent.submit(login, PASSWORD)).location).toMatch(/^https:\/\/spa\.example\.test\/callback\?code=/);
  });
});

describe('variant spa-login', () => {
  it('serves a login page without a form, its one script allowed by hash', async () => {
    const idp = await start(['spa-login']);
    const page = await authorize(idp, new UserAgent());
    expect(page.status).toBe(200);
    expect(page.html).not.toMatch(/<form|<input|<button/);
    const read = model(page);
    expect(read.forms).toEqual([]);
    expect(read.scripts).toBeGreaterThan(0);
    const script = /<script>([^<]+)<\/script>/.exec(page.html)![1]!;
    const hash = createHash('sha256').update(script).digest('base64');
    expect(page.headers.get('content-security-policy')).toContain(`script-src 'sha256-${hash}'`);
    const data = JSON.parse(/<script type="application\/json" id="login-form">([^<]+)<\/script>/.exec(page.html)![1]!);
    expect(data.fields.map((f: { name: string }) => f.name)).toEqual(['username', 'password']);
  });
});

describe('variant form-post-script, and flaw form-post-not-submitting', () => {
  const formPostPage = async (variants: VariantName[], flaws: FlawName[] = []) => {
    const idp = await start(variants, flaws);
    const result = await formPostResponse(idp);
    return result.page!;
  };
  const sha = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

  it('plain: <body onload>, allowed by its hash with unsafe-hashes', async () => {
    const page = await formPostPage([]);
    expect(page.html).toContain('<body onload="document.forms[0].submit()">');
    expect(page.html).not.toContain('<script');
    expect(page.headers.get('content-security-policy')).toContain(
      `script-src 'unsafe-hashes' ${sha('document.forms[0].submit()')}`,
    );
  });

  it('form-post-script: a script submits on DOMContentLoaded, no onload attribute', async () => {
    const page = await formPostPage(['form-post-script']);
    expect(page.html).not.toContain('onload');
    const script = /<script>([^<]+)<\/script>/.exec(page.html)![1]!;
    expect(script).toContain('DOMContentLoaded');
    expect(page.headers.get('content-security-policy')).toContain(`script-src ${sha(script)}`);
  });

  it('form-post-not-submitting: the handler sits on a <div>, where no load event fires', async () => {
    for (const variants of [[], ['form-post-script']] as VariantName[][]) {
      const page = await formPostPage(variants, ['form-post-not-submitting']);
      expect(page.html).toContain('<div onload=');
      expect(page.html).not.toMatch(/<body onload|<script/);
    }
  });
});

describe('the device activation pages under the page variants', () => {
  it('asks for the password on a second page and checks the CSRF token of the decision', async () => {
    const idp = await start(['two-step-login', 'csrf-forms']);
    const device = await startDevice(idp.issuer);
    const agent = new UserAgent();
    const entered = await agent.post(device.verification_uri, { user_code: device.user_code });
    const login = await agent.get(entered.location!);
    expect(login.html).not.toContain('type="password"');
    const second = await agent.submit(login, fields(login, idp.issuer, { username: SEEDED_USER.username }));
    const after = await agent.submit(second, fields(second, idp.issuer, { password: SEEDED_USER.password }));
    expect(after.status).toBe(303);
    const decision = await agent.get(after.location!);
    expect((await agent.submit(decision, { decision: 'approve' })).status).toBe(403);
    const approved = await agent.submit(decision, fields(decision, idp.issuer, { decision: 'approve' }));
    expect(approved.status).toBe(200);
  });
});
