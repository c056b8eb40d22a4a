import { describe, expect, it } from 'vitest';
import { SEEDED_CLIENTS, type ClientConfig } from '../../reference/index.ts';
import {
  ALICE,
  authUrl,
  browse,
  credentials,
  formAction,
  openLogin,
  pkce,
  postForm,
  SPA,
  useServer,
  WEB,
} from './helpers.ts';

const EVIL_NAME = '<script>alert("x")</script> & Co';
const clients: ClientConfig[] = [
  ...Object.values(SEEDED_CLIENTS),
  {
    clientId: 'third-party-web',
    clientSecret: 'tp-secret',
    redirectUris: ['https://tp.example.test/cb'],
    allowedScope: 'openid email',
    grantTypes: ['authorization_code'],
    firstParty: false,
    name: EVIL_NAME,
  },
  {
    clientId: 'no-code-grant',
    clientSecret: 'ncg-secret',
    redirectUris: ['https://ncg.example.test/cb'],
    allowedScope: 'openid',
    grantTypes: ['client_credentials'],
    firstParty: true,
    name: 'No Code',
  },
];

const { challenge } = pkce();
/** A valid request for the seeded first-party web app; tests change one thing each. */
const webRequest = (over: Record<string, string> = {}) => ({
  response_type: 'code',
  client_id: WEB.clientId,
  redirect_uri: WEB.redirectUri,
  scope: 'openid profile',
  state: 'xyz',
  code_challenge: challenge,
  code_challenge_method: 'S256',
  ...over,
});
const spaRequest = (over: Record<string, string> = {}) =>
  webRequest({ client_id: SPA.clientId, redirect_uri: SPA.redirectUri, ...over });

/** The error parameters of a redirect back to the client. */
function redirectedError(location: string | null, redirectUri: string) {
  expect(location, 'expected a redirect to the client').not.toBeNull();
  const url = new URL(location!);
  expect(`${url.origin}${url.pathname}`).toBe(redirectUri);
  return Object.fromEntries(url.searchParams);
}

describe('GET /auth: errors shown as a page, never redirected', () => {
  const ctx = useServer({ clients });

  it.each([
    ['an unknown client_id', { client_id: 'nobody' }],
    ['a missing client_id', { client_id: '' }],
    ['a missing redirect_uri', { redirect_uri: '' }],
    ['an unregistered redirect_uri', { redirect_uri: 'https://attacker.example/cb' }],
    ['a redirect_uri with a trailing slash', { redirect_uri: `${WEB.redirectUri}/` }],
    ['a redirect_uri extended by a path', { redirect_uri: `${WEB.redirectUri}/evil` }],
    ['a redirect_uri with an added query', { redirect_uri: `${WEB.redirectUri}?next=https://attacker.example` }],
    ['a redirect_uri differing in case', { redirect_uri: WEB.redirectUri.toUpperCase() }],
    ['a redirect_uri on another client', { redirect_uri: SPA.redirectUri }],
  ])('%s gets an error page (400) and no Location', async (_, over) => {
    const params = Object.fromEntries(Object.entries(webRequest(over)).filter(([, v]) => v !== ''));
    const res = await fetch(authUrl(ctx.issuer, params), { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(await res.text()).toContain('invalid_request');
  });

  it('a repeated client_id or redirect_uri gets the error page too', async () => {
    for (const name of ['client_id', 'redirect_uri']) {
      const query = new URLSearchParams(webRequest());
      query.append(name, query.get(name)!);
      const res = await fetch(`${ctx.issuer}/auth?${query}`, { redirect: 'manual' });
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    }
  });

  it('escapes what it echoes on the error page', async () => {
    const res = await fetch(authUrl(ctx.issuer, { client_id: '<b>x</b>', redirect_uri: 'https://a.example' }), {
      redirect: 'manual',
    });
    expect(await res.text()).not.toContain('<b>x</b>');
  });
});

describe('GET /auth: other errors redirect with error, error_description and state', () => {
  const ctx = useServer({ clients });
  const go = async (params: Record<string, string>, redirectUri = WEB.redirectUri) => {
    const res = await fetch(authUrl(ctx.issuer, params), { redirect: 'manual' });
    expect(res.status).toBe(303);
    return redirectedError(res.headers.get('location'), redirectUri);
  };

  const ESSENTIAL_UNMET_ACR = JSON.stringify({ id_token: { acr: { essential: true, values: ['urn:example:mfa'] } } });
  it.each([
    ['response_type missing', { response_type: '' }, 'invalid_request'],
    ['response_type token', { response_type: 'token' }, 'unsupported_response_type'],
    ["a scope beyond the client's allowed set", { scope: 'openid api:write' }, 'invalid_scope'],
    ['an unknown scope', { scope: 'openid root' }, 'invalid_scope'],
    ['no scope', { scope: '' }, 'invalid_scope'],
    ['code_challenge_method plain', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['code_challenge without a method (plain by default)', { code_challenge_method: '' }, 'invalid_request'],
    ['code_challenge_method without code_challenge', { code_challenge: '' }, 'invalid_request'],
    ['a malformed S256 challenge', { code_challenge: 'short' }, 'invalid_request'],
    ['an unknown code_challenge_method', { code_challenge_method: 'S512' }, 'invalid_request'],
    ['prompt=none without a session', { prompt: 'none' }, 'login_required'],
    ['response_mode fragment', { response_mode: 'fragment' }, 'invalid_request'],
    ['an unsigned request object', { request: 'eyJhbGciOiJub25lIn0.e30.' }, 'invalid_request_object'],
    ['an essential acr it cannot meet', { claims: ESSENTIAL_UNMET_ACR }, 'unmet_authentication_requirements'],
  ])('%s → %s', async (_, over, error) => {
    const params = Object.fromEntries(Object.entries(webRequest(over)).filter(([, v]) => v !== ''));
    const result = await go(params);
    expect(result).toMatchObject({ error, state: 'xyz', iss: ctx.issuer });
    expect(result.error_description).toEqual(expect.any(String));
    expect(result).not.toHaveProperty('code');
  });

  it('a repeated parameter is invalid_request', async () => {
    const query = new URLSearchParams(webRequest());
    query.append('scope', 'openid');
    const res = await fetch(`${ctx.issuer}/auth?${query}`, { redirect: 'manual' });
    expect(redirectedError(res.headers.get('location'), WEB.redirectUri)).toMatchObject({ error: 'invalid_request' });
  });

  it('a client not allowed the code grant is unauthorized_client', async () => {
    const result = await go(
      { ...webRequest({ client_id: 'no-code-grant', redirect_uri: 'https://ncg.example.test/cb' }) },
      'https://ncg.example.test/cb',
    );
    expect(result.error).toBe('unauthorized_client');
  });

  it('PKCE is required for the public client and for a third-party confidential client', async () => {
    expect(await go(spaRequest({ code_challenge: '', code_challenge_method: '' }), SPA.redirectUri)).toMatchObject({
      error: 'invalid_request',
      state: 'xyz',
    });
    const tp = {
      client_id: 'third-party-web',
      redirect_uri: 'https://tp.example.test/cb',
      scope: 'openid',
      code_challenge: '',
      code_challenge_method: '',
    };
    const params = Object.fromEntries(Object.entries(webRequest(tp)).filter(([, v]) => v !== ''));
    expect(await go(params, 'https://tp.example.test/cb')).toMatchObject({ error: 'invalid_request' });
  });

  it('returns state unchanged, however odd its characters', async () => {
    const state = 'a b&c=d/é?#%20';
    expect(await go(webRequest({ state, response_type: 'token' }))).toMatchObject({ state });
  });

  it('omits state when the request had none', async () => {
    const params = Object.fromEntries(
      Object.entries(webRequest({ response_type: 'token' })).filter(([k]) => k !== 'state'),
    );
    expect(await go(params)).not.toHaveProperty('state');
  });
});

describe('login page', () => {
  const ctx = useServer({ clients });

  it('is a framing-protected, uncached form with labelled username and password fields', async () => {
    const res = await fetch(authUrl(ctx.issuer, webRequest()), { redirect: 'manual' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('set-cookie')).toMatch(/HttpOnly; SameSite=Lax/);
    const html = await res.text();
    expect(html).toMatch(/<form method="post" action="[^"]+\/login">/);
    expect(html).toMatch(/<label for="username">/);
    expect(html).toMatch(/<label for="password">/);
    expect(html).toMatch(/<input type="text" id="username" name="username"[^>]*autofocus/);
    expect(html).toMatch(/<input type="password" id="password" name="password"/);
    expect(html).not.toMatch(/<script|<link|src="http/);
  });

  it('escapes the client name', async () => {
    const params = webRequest({
      client_id: 'third-party-web',
      redirect_uri: 'https://tp.example.test/cb',
      scope: 'openid',
    });
    const html = await (await fetch(authUrl(ctx.issuer, params))).text();
    expect(html).not.toContain(EVIL_NAME);
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Co');
  });

  it('shows the form again on a wrong password, without redirecting', async () => {
    const result = await browse(authUrl(ctx.issuer, webRequest()), { password: 'wrong' });
    expect(result.statuses).toEqual([200, 200]);
    expect(result.location).toBeUndefined();
    expect(result.page).toContain('Invalid username or password.');
    expect(result.page).toContain(`value="${ALICE.username}"`);
  });

  it('refuses a POST without the interaction cookie, and an unknown interaction', async () => {
    const { action } = await openLogin(authUrl(ctx.issuer, webRequest()));
    const noCookie = await postForm(action, '', credentials);
    expect(noCookie.status).toBe(400);
    expect(noCookie.headers.get('location')).toBeNull();
    expect(await noCookie.text()).toContain('another browser');
    const unknown = await postForm(`${ctx.issuer}/interaction/nope/login`, '', credentials);
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain('unknown or has expired');
  });
});

describe('after login', () => {
  const ctx = useServer({ clients });

  it(
    'a first-party client skips consent: 303 (never 307) straight to the redirect_uri with code, ' + 'state and iss',
    async () => {
      const result = await browse(authUrl(ctx.issuer, webRequest()));
      expect(result.statuses).toEqual([200, 303]);
      const url = new URL(result.location!);
      expect(`${url.origin}${url.pathname}`).toBe(WEB.redirectUri);
      expect(url.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(url.searchParams.get('state')).toBe('xyz');
      expect(url.searchParams.get('iss')).toBe(ctx.issuer);
    },
  );

  it('a first-party confidential client may omit PKCE', async () => {
    const params = Object.fromEntries(Object.entries(webRequest()).filter(([k]) => !k.startsWith('code_challenge')));
    const result = await browse(authUrl(ctx.issuer, params));
    expect(new URL(result.location!).searchParams.get('code')).toBeTruthy();
  });

  it('a third-party client always gets the consent page, naming the client and the scopes', async () => {
    const { action, cookie } = await openLogin(
      authUrl(ctx.issuer, spaRequest({ scope: 'openid profile offline_access' })),
    );
    const login = await postForm(action, cookie, credentials);
    expect(login.status).toBe(303);
    const consentUrl = login.headers.get('location')!;
    expect(consentUrl.startsWith(ctx.issuer)).toBe(true);
    const page = await fetch(consentUrl, { headers: { cookie } });
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const consent = await page.text();
    expect(consent).toContain(SPA.name);
    for (const scope of ['openid', 'profile', 'offline_access']) expect(consent).toContain(`<code>${scope}</code>`);
    expect(consent).toMatch(/<button type="submit" name="decision" value="approve"/);
    expect(consent).toMatch(/<button type="submit" name="decision" value="deny"/);
  });

  it('consent approved: a code; consent denied: access_denied with state', async () => {
    const approved = await browse(authUrl(ctx.issuer, spaRequest()), { decision: 'approve' });
    expect(approved.statuses).toEqual([200, 303, 200, 303]);
    expect(new URL(approved.location!).searchParams.get('code')).toBeTruthy();
    const denied = await browse(authUrl(ctx.issuer, spaRequest()), { decision: 'deny' });
    const params = redirectedError(denied.location!, SPA.redirectUri);
    expect(params).toMatchObject({ error: 'access_denied', state: 'xyz' });
    expect(params).not.toHaveProperty('code');
  });

  it('an interaction completes once: a second consent POST gets the error page', async () => {
    const { action, cookie } = await openLogin(authUrl(ctx.issuer, spaRequest()));
    const login = await postForm(action, cookie, credentials);
    const consentAction = formAction(
      await (await fetch(login.headers.get('location')!, { headers: { cookie } })).text(),
    );
    const first = await postForm(consentAction, cookie, { decision: 'approve' });
    expect(first.status).toBe(303);
    const second = await postForm(consentAction, cookie, { decision: 'approve' });
    expect(second.status).toBe(400);
    expect(second.headers.get('location')).toBeNull();
  });

  it('consent before login is refused', async () => {
    const { action, cookie } = await openLogin(authUrl(ctx.issuer, spaRequest()));
    const early = await postForm(action.replace(/\/login$/, '/consent'), cookie, { decision: 'approve' });
    expect(early.status).toBe(400);
    expect(early.headers.get('location')).toBeNull();
  });
});
