/**
 * The login session and what acts on it (OIDC Core §3.1.2.1: prompt, max_age, id_token_hint;
 * RP-Initiated Logout 1.0), the authorization request by POST, the claims parameter (§5.5) and
 * the opt-in key-rotation hook. A small cookie-keeping browser drives the pages.
 */
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createReferenceServer,
  SEEDED_USER,
  targetConfig,
  type ReferenceServer,
  type UserConfig,
} from '../../reference/index.ts';
import { Browser, walk } from '../support/session-browser.ts';
import { basic, formAction, pkce, SPA, WEB } from './helpers.ts';

const BOB: UserConfig = { ...SEEDED_USER, username: 'bob', password: 'bob-builder-77', sub: 'user-0002-bob' };

let clock = Date.UTC(2026, 10, 23, 12);
let server: ReferenceServer;
let issuer: string;
beforeAll(async () => {
  server = createReferenceServer({
    signingAlg: 'ES256',
    users: [SEEDED_USER, BOB],
    now: () => clock,
    adminHooks: true,
  });
  ({ issuer } = await server.listen(0, '127.0.0.1'));
});
afterAll(() => server.close());

function authUrlFor(
  client: typeof WEB | typeof SPA,
  params: Record<string, string> = {},
): { url: string; verifier: string } {
  const { verifier, challenge } = pkce();
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    scope: 'openid',
    state: 'st',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...params,
  });
  return { url: `${issuer}/auth?${query}`, verifier };
}

async function redeem(
  client: typeof WEB | typeof SPA,
  location: URL | undefined,
  verifier: string,
): Promise<Record<string, unknown>> {
  const code = location?.searchParams.get('code');
  if (!code) throw new Error(`no code: ${location?.href}`);
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  const form: Record<string, string> = {
    grant_type: 'authorization_code',
    code,
    redirect_uri: client.redirectUri,
    code_verifier: verifier,
  };
  if ('clientSecret' in client && client.clientSecret)
    headers.authorization = basic(client.clientId, client.clientSecret);
  else form.client_id = client.clientId;
  const res = await fetch(`${issuer}/token`, { method: 'POST', headers, body: new URLSearchParams(form) });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

/** A browser signed in as `user` through WEB, and the ID token of that login. */
async function signedIn(user: UserConfig = SEEDED_USER): Promise<{ browser: Browser; idToken: string }> {
  const browser = new Browser();
  const { url, verifier } = authUrlFor(WEB);
  const { location } = await walk(browser, issuer, url, { user });
  const tokens = await redeem(WEB, location, verifier);
  return { browser, idToken: String(tokens.id_token) };
}

describe('the login session', () => {
  it(
    'is a HttpOnly, SameSite=Lax cookie set at login; a first-party request in the session gets a code ' +
      'without any page',
    async () => {
      const browser = new Browser();
      const first = authUrlFor(WEB);
      const login = await walk(browser, issuer, first.url);
      expect(login.pages).toEqual(['login']);
      expect(browser.hasCookie('idpc_session', issuer)).toBe(true);
      const cookie = browser.setCookies.find((line) => line.startsWith('idpc_session='));
      expect(cookie).toMatch(/; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
      const firstToken = decodeJwt(String((await redeem(WEB, login.location, first.verifier)).id_token));
      clock += 30_000;
      const again = authUrlFor(WEB);
      const silent = await walk(browser, issuer, again.url);
      expect(silent.pages).toEqual([]);
      expect(silent.location?.searchParams.get('state')).toBe('st');
      const second = decodeJwt(String((await redeem(WEB, silent.location, again.verifier)).id_token));
      expect(second.sub).toBe(firstToken.sub);
      expect(second.auth_time).toBe(firstToken.auth_time);
    },
  );

  it('still shows a third-party client the consent page (SPEC first/third-party), but no login page', async () => {
    const { browser } = await signedIn();
    const { url } = authUrlFor(SPA);
    expect((await walk(browser, issuer, url)).pages).toEqual(['consent']);
  });
});

describe('prompt', () => {
  it('none without a session: login_required with state and iss, no page', async () => {
    const { location } = await walk(new Browser(), issuer, authUrlFor(WEB, { prompt: 'none' }).url, { act: false });
    expect(Object.fromEntries(location!.searchParams)).toMatchObject({
      error: 'login_required',
      state: 'st',
      iss: issuer,
    });
  });

  it('none with a session: a code; for a third-party client only once it has consent in the session', async () => {
    const { browser } = await signedIn();
    expect(
      (await walk(browser, issuer, authUrlFor(WEB, { prompt: 'none' }).url, { act: false })).location?.searchParams.has(
        'code',
      ),
    ).toBe(true);
    const spa = await walk(browser, issuer, authUrlFor(SPA, { prompt: 'none' }).url, { act: false });
    expect(spa.location?.searchParams.get('error')).toBe('consent_required');
    await walk(browser, issuer, authUrlFor(SPA).url);
    expect(
      (await walk(browser, issuer, authUrlFor(SPA, { prompt: 'none' }).url, { act: false })).location?.searchParams.has(
        'code',
      ),
    ).toBe(true);
  });

  it('none with another value is invalid_request', async () => {
    const { location } = await walk(new Browser(), issuer, authUrlFor(WEB, { prompt: 'none login' }).url, {
      act: false,
    });
    expect(location?.searchParams.get('error')).toBe('invalid_request');
  });

  it('login makes a signed-in user log in again, with a later auth_time', async () => {
    const { browser, idToken } = await signedIn();
    clock += 5_000;
    const { url, verifier } = authUrlFor(WEB, { prompt: 'login' });
    const again = await walk(browser, issuer, url);
    expect(again.pages).toEqual(['login']);
    const claims = decodeJwt(String((await redeem(WEB, again.location, verifier)).id_token));
    expect(claims.auth_time).toBe(Number(decodeJwt(idToken).auth_time) + 5);
  });
});

describe('max_age', () => {
  it('reuses a younger session, and asks for a new login when the session is older (or max_age is 0)', async () => {
    const { browser, idToken } = await signedIn();
    clock += 100_000;
    const young = authUrlFor(WEB, { max_age: '3600' });
    const reused = await walk(browser, issuer, young.url);
    expect(reused.pages).toEqual([]);
    expect(decodeJwt(String((await redeem(WEB, reused.location, young.verifier)).id_token)).auth_time).toBe(
      decodeJwt(idToken).auth_time,
    );
    expect((await walk(browser, issuer, authUrlFor(WEB, { max_age: '50' }).url, { act: false })).page?.status).toBe(
      200,
    );
    expect((await walk(browser, issuer, authUrlFor(WEB, { max_age: '0' }).url, { act: false })).page?.html).toMatch(
      /name="password"/,
    );
    expect(
      (await walk(browser, issuer, authUrlFor(WEB, { max_age: 'soon' }).url)).location?.searchParams.get('error'),
    ).toBe('invalid_request');
  });
});

describe('id_token_hint', () => {
  it(
    "the session user's hint with prompt=none gets a code; another user's gets login_required; a forged one " +
      'invalid_request',
    async () => {
      const alice = await signedIn();
      const bob = await signedIn(BOB);
      const own = await walk(
        alice.browser,
        issuer,
        authUrlFor(WEB, { prompt: 'none', id_token_hint: alice.idToken }).url,
        { act: false },
      );
      expect(own.location?.searchParams.has('code')).toBe(true);
      const other = await walk(
        alice.browser,
        issuer,
        authUrlFor(WEB, { prompt: 'none', id_token_hint: bob.idToken }).url,
        { act: false },
      );
      expect(other.location?.searchParams.get('error')).toBe('login_required');
      const [h, p, s] = alice.idToken.split('.');
      const payload = Buffer.from(JSON.stringify({ ...decodeJwt(alice.idToken), sub: BOB.sub })).toString('base64url');
      const forged = await walk(
        alice.browser,
        issuer,
        authUrlFor(WEB, { prompt: 'none', id_token_hint: `${h}.${payload}.${s}` }).url,
        { act: false },
      );
      expect(p).not.toBe(payload);
      expect(forged.location?.searchParams.get('error')).toBe('invalid_request');
      // Without prompt=none, another user's hint asks for a login instead of answering for alice.
      expect(
        (await walk(alice.browser, issuer, authUrlFor(WEB, { id_token_hint: bob.idToken }).url, { act: false })).page
          ?.html,
      ).toMatch(/name="password"/);
    },
  );
});

describe('RP-initiated logout', () => {
  const registered = WEB.postLogoutRedirectUris![0]!;
  const logoutUrl = (params: Record<string, string>) => `${issuer}/session/end?${new URLSearchParams(params)}`;
  const promptNone = async (browser: Browser) =>
    (await walk(browser, issuer, authUrlFor(WEB, { prompt: 'none' }).url, { act: false })).location?.searchParams.get(
      'error',
    ) ?? 'code';

  it('is advertised as end_session_endpoint', async () => {
    const doc = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(doc.end_session_endpoint).toBe(`${issuer}/session/end`);
  });

  it(
    "with the session user's hint and a registered URI: the session ends and the user goes " + 'back with state',
    async () => {
      const { browser, idToken } = await signedIn();
      const res = await browser.send(
        logoutUrl({ id_token_hint: idToken, post_logout_redirect_uri: registered, state: 'bye' }),
      );
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe(`${registered}?state=bye`);
      expect(browser.hasCookie('idpc_session', issuer)).toBe(false);
      expect(await promptNone(browser)).toBe('login_required');
    },
  );

  it('never redirects to an unregistered URI, nor without knowing the client; the session stays', async () => {
    const { browser, idToken } = await signedIn();
    const cases: Record<string, string>[] = [
      { id_token_hint: idToken, post_logout_redirect_uri: 'https://attacker.example.test/logged-out' },
      { id_token_hint: idToken, post_logout_redirect_uri: `${registered}/x` },
      { post_logout_redirect_uri: registered },
      { id_token_hint: idToken, client_id: SPA.clientId, post_logout_redirect_uri: registered },
    ];
    for (const params of cases) {
      const res = await browser.send(logoutUrl(params));
      expect(res.status, JSON.stringify(params)).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    }
    expect(await promptNone(browser)).toBe('code');
  });

  it('without a hint asks the user first: deny keeps the session, approve ends it', async () => {
    const { browser } = await signedIn();
    const ask = await browser.send(
      logoutUrl({ client_id: WEB.clientId, post_logout_redirect_uri: registered, state: 's' }),
    );
    const html = await ask.text();
    expect(html).toMatch(/Sign out\?/);
    const denied = await browser.send(formAction(html), {
      form: { client_id: WEB.clientId, post_logout_redirect_uri: registered, state: 's', decision: 'deny' },
    });
    expect(denied.status).toBe(200);
    expect(await promptNone(browser)).toBe('code');
    const approved = await browser.send(formAction(html), {
      form: { client_id: WEB.clientId, post_logout_redirect_uri: registered, state: 's', decision: 'approve' },
    });
    expect(approved.headers.get('location')).toBe(`${registered}?state=s`);
    expect(await promptNone(browser)).toBe('login_required');
  });
});

describe('the authorization request by POST (OIDC Core §3.1.2.1)', () => {
  it('works like GET; a body that is not a form is an error page', async () => {
    const { url, verifier } = authUrlFor(WEB, { nonce: 'n-post' });
    const result = await walk(new Browser(), issuer, url, { post: true });
    expect(result.pages).toEqual(['login']);
    expect(decodeJwt(String((await redeem(WEB, result.location, verifier)).id_token)).nonce).toBe('n-post');
    const json = await fetch(`${issuer}/auth`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
      redirect: 'manual',
    });
    expect(json.status).toBe(400);
    expect(json.headers.get('location')).toBeNull();
  });
});

describe('the claims parameter (OIDC Core §5.5)', () => {
  it('returns the claims asked for in the ID token and from userinfo, whatever the scope', async () => {
    const claims = JSON.stringify({ id_token: { email: { essential: true } }, userinfo: { name: null } });
    const { url, verifier } = authUrlFor(WEB, { claims });
    const tokens = await redeem(WEB, (await walk(new Browser(), issuer, url)).location, verifier);
    const id = decodeJwt(String(tokens.id_token));
    expect(id.email).toBe(SEEDED_USER.claims.email);
    expect(id.name).toBeUndefined();
    const info = (await (
      await fetch(`${issuer}/userinfo`, { headers: { authorization: `Bearer ${String(tokens.access_token)}` } })
    ).json()) as Record<string, unknown>;
    expect(info).toEqual({ sub: SEEDED_USER.sub, name: SEEDED_USER.claims.name });
  });

  it('a malformed claims parameter is invalid_request at the redirect_uri', async () => {
    for (const claims of ['{not json', '[]', '{"id_token":"email"}']) {
      const { location } = await walk(new Browser(), issuer, authUrlFor(WEB, { claims }).url);
      expect(location?.searchParams.get('error'), claims).toBe('invalid_request');
    }
  });
});

describe('the key-rotation hook', () => {
  it('is written to the target config and rotates on a POST with its secret; the old key stays published', async () => {
    const hook = targetConfig(server).hooks?.rotateKeys;
    expect(hook).toMatch(new RegExp(`^${issuer}/admin/[A-Za-z0-9_-]{43}/rotate-keys$`));
    const before = server.context.keys.current.kid;
    expect((await fetch(hook!.replace(/admin\/[^/]+/, 'admin/wrong'), { method: 'POST' })).status).toBe(404);
    const res = await fetch(hook!, { method: 'POST' });
    expect(res.status).toBe(200);
    const { kid } = (await res.json()) as { kid: string };
    expect(kid).not.toBe(before);
    const jwks = (await (await fetch(`${issuer}/jwks`)).json()) as { keys: { kid: string }[] };
    expect(jwks.keys.map((k) => k.kid)).toEqual([kid, before]);
  });

  it('does not exist unless the server is started with adminHooks', async () => {
    const plain = createReferenceServer({ signingAlg: 'ES256' });
    const { issuer: plainIssuer } = await plain.listen(0, '127.0.0.1');
    try {
      expect(targetConfig(plain).hooks).toBeUndefined();
      const res = await fetch(`${plainIssuer}/admin/anything/rotate-keys`, { method: 'POST' });
      expect(res.status).toBe(404);
    } finally {
      await plain.close();
    }
  });
});
