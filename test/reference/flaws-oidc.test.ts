/**
 * The OIDC Core, Discovery and RP-Initiated Logout flaws (issue 15): each changes the behaviour it
 * names and nothing else on the clean path. nonce-required-for-code (the clean path's own
 * requests send no nonce) and rotation-drops-old-key (its switch sits in the opt-in admin hook)
 * are proven by the catalog matrix and test/matrix/oidc-statuses.test.ts only.
 */
import { decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT } from 'jose';
import { describe } from 'vitest';
import { readPage } from '../../harness/login/html.ts';
import { newVerifier, s256, SPA, WEB, type ReferenceClient } from '../support/reference-client.ts';
import { Browser, walk } from '../support/session-browser.ts';
import { flawTests, type FlawProbe } from './flaw-matrix.ts';

/** The seeded web client's registered post_logout_redirect_uri. */
const LOGGED_OUT = WEB.postLogoutRedirectUris![0]!;

const pkceQuery = () => ({ code_challenge: s256(newVerifier()), code_challenge_method: 'S256' });
const authQuery = (client: typeof WEB, extra: Record<string, string> = {}) =>
  new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: client.redirectUris[0]!,
    scope: 'openid',
    state: 's',
    ...pkceQuery(),
    ...extra,
  });

/** Where one authorization request ends: the error, "code", or the page status. */
async function answer(
  idp: ReferenceClient,
  query: Record<string, string | undefined>,
  client: typeof WEB = WEB,
): Promise<string> {
  const result = await idp.authorize({
    client,
    query: { response_type: 'code', scope: 'openid', ...pkceQuery(), ...query },
  });
  return result.params.get('error') ?? (result.params.has('code') ? 'code' : `page ${result.page?.status}`);
}

/** A browser signed in through WEB, with the ID token of the login. */
async function signedIn(idp: ReferenceClient): Promise<{ browser: Browser; idToken: string }> {
  const browser = new Browser();
  const verifier = newVerifier();
  const { location } = await walk(
    browser,
    idp.issuer,
    `${idp.issuer}/auth?${authQuery(WEB, { code_challenge: s256(verifier) })}`,
  );
  const redeemed = await idp.redeem(location!.searchParams.get('code')!, WEB, { code_verifier: verifier });
  return { browser, idToken: String(redeemed.body.id_token) };
}

/** What a second request in a signed-in browser gets: "code" without a page, the error, or "login page". */
async function inSession(idp: ReferenceClient, extra: (idToken: string) => Record<string, string>): Promise<string> {
  const { browser, idToken } = await signedIn(idp);
  const result = await walk(browser, idp.issuer, `${idp.issuer}/auth?${authQuery(WEB, extra(idToken))}`, {
    act: false,
  });
  if (result.location) return result.location.searchParams.get('error') ?? 'code';
  return /name="password"/.test(result.page?.html ?? '') ? 'login page' : `page ${result.page?.status}`;
}

/** A request object for `client`, signed by a fresh key the client never registered. */
async function foreignRequestObject(issuer: string, client: typeof WEB): Promise<string> {
  const { privateKey } = await generateKeyPair('ES256');
  return new SignJWT({ client_id: client.clientId, response_type: 'code', scope: 'openid', state: 'object' })
    .setProtectedHeader({ alg: 'ES256', typ: 'oauth-authz-req+jwt' })
    .setIssuer(client.clientId)
    .setAudience(issuer)
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(privateKey);
}

const PROBES: FlawProbe[] = [
  {
    flaw: 'response-type-defaulted',
    probe: (idp) => answer(idp, { response_type: undefined }),
    clean: 'invalid_request',
    flawed: 'code',
  },
  {
    flaw: 'authorize-errors-as-page',
    // An unknown scope and an unsupported response_type, of a known client with its registered redirect_uri.
    probe: async (idp) => [
      await answer(idp, { scope: 'openid nonexistent' }),
      await answer(idp, { response_type: 'nonexistent' }),
    ],
    clean: ['invalid_scope', 'unsupported_response_type'],
    flawed: ['page 200', 'page 200'],
  },
  {
    flaw: 'authorize-get-only',
    probe: async (idp) =>
      (
        await fetch(`${idp.issuer}/auth`, {
          method: 'POST',
          redirect: 'manual',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: authQuery(WEB),
        })
      ).status,
    clean: 200,
    flawed: 405,
  },
  {
    flaw: 'unknown-param-rejected',
    probe: (idp) => answer(idp, { x_unknown: '1', login_hint: 'alice' }),
    clean: 'code',
    flawed: 'invalid_request',
  },
  {
    flaw: 'scope-order-sensitive',
    probe: (idp) => answer(idp, { scope: 'profile openid' }),
    clean: 'code',
    flawed: 'invalid_scope',
  },
  {
    flaw: 'denial-wrong-error',
    probe: async (idp) =>
      (
        await idp.authorize({
          client: SPA,
          decision: 'deny',
          query: { response_type: 'code', scope: 'openid', ...pkceQuery() },
        })
      ).params.get('error'),
    clean: 'access_denied',
    flawed: 'invalid_request',
  },
  {
    flaw: 'auth-time-missing',
    probe: async (idp) =>
      typeof decodeJwt(String((await idp.tokensFor(WEB, { scope: 'openid', max_age: '600' })).id_token)).auth_time,
    clean: 'number',
    flawed: 'undefined',
  },
  {
    flaw: 'prompt-none-shows-page',
    probe: async (idp) =>
      (await fetch(`${idp.issuer}/auth?${authQuery(WEB, { prompt: 'none' })}`, { redirect: 'manual' })).status,
    clean: 303,
    flawed: 200,
  },
  {
    flaw: 'prompt-none-ignored',
    probe: (idp) => inSession(idp, () => ({ prompt: 'none' })),
    clean: 'code',
    flawed: 'login_required',
  },
  {
    flaw: 'prompt-login-ignored',
    probe: (idp) => inSession(idp, () => ({ prompt: 'login' })),
    clean: 'login page',
    flawed: 'code',
  },
  {
    flaw: 'max-age-ignored',
    probe: (idp) => inSession(idp, () => ({ max_age: '0' })),
    clean: 'login page',
    flawed: 'code',
  },
  {
    flaw: 'id-token-hint-ignored',
    probe: (idp) =>
      inSession(idp, (idToken) => {
        const [h, , s] = idToken.split('.');
        const other = Buffer.from(JSON.stringify({ ...decodeJwt(idToken), sub: 'someone-else' })).toString('base64url');
        return { prompt: 'none', id_token_hint: `${h}.${other}.${s}` };
      }),
    clean: 'invalid_request',
    flawed: 'code',
  },
  {
    flaw: 'userinfo-get-only',
    probe: async (idp) => {
      const tokens = await idp.tokensFor(WEB, { scope: 'openid' });
      return (
        await fetch(`${idp.issuer}/userinfo`, {
          method: 'POST',
          headers: { authorization: `Bearer ${String(tokens.access_token)}` },
        })
      ).status;
    },
    clean: 200,
    flawed: 405,
  },
  {
    flaw: 'request-object-ignored',
    probe: (idp) => answer(idp, { request: 'eyJhbGciOiJub25lIn0.e30.' }),
    clean: 'invalid_request_object',
    flawed: 'code',
  },
  {
    flaw: 'request-object-signature-unchecked',
    // A request object for WEB signed by a key nobody registered (WEB registers none at all).
    probe: async (idp) => answer(idp, { request: await foreignRequestObject(idp.issuer, WEB) }),
    clean: 'invalid_request_object',
    flawed: 'code',
  },
  {
    flaw: 'acr-ignored',
    probe: (idp) => answer(idp, { claims: '{"id_token":{"acr":{"essential":true,"values":["urn:x"]}}}' }),
    clean: 'unmet_authentication_requirements',
    flawed: 'code',
  },
  {
    flaw: 'at-jwt-wrong-typ',
    probe: async (idp) =>
      decodeProtectedHeader(String((await idp.tokensFor(WEB, { scope: 'openid' })).access_token)).typ,
    clean: 'at+jwt',
    flawed: 'JWT',
  },
  {
    flaw: 'claims-parameter-ignored',
    probe: async (idp) =>
      decodeJwt(String((await idp.tokensFor(WEB, { scope: 'openid', claims: '{"id_token":{"email":null}}' })).id_token))
        .email ?? null,
    clean: 'alice@example.test',
    flawed: null,
  },
  {
    flaw: 'discovery-field-missing',
    probe: async (idp) => (await idp.json('/.well-known/openid-configuration')).subject_types_supported ?? null,
    clean: ['public'],
    flawed: null,
  },
  {
    flaw: 'logout-open-redirect',
    probe: async (idp) => {
      const res = await idp.get(
        `/session/end?${new URLSearchParams({
          client_id: WEB.clientId,
          post_logout_redirect_uri: 'https://attacker.e' + 'xample.test/out',
        })}`,
      );
      return [res.status, res.headers.get('location')];
    },
    clean: [400, null],
    flawed: [303, 'https://attacker.example.test/out'],
  },
  {
    flaw: 'logout-keeps-session',
    probe: async (idp) => {
      const { browser, idToken } = await signedIn(idp);
      await browser.send(`${idp.issuer}/session/end?${new URLSearchParams({ id_token_hint: idToken })}`);
      const after = await walk(browser, idp.issuer, `${idp.issuer}/auth?${authQuery(WEB, { prompt: 'none' })}`, {
        act: false,
      });
      return after.location?.searchParams.get('error') ?? 'code';
    },
    clean: 'login_required',
    flawed: 'code',
  },
  {
    flaw: 'logout-token-has-nonce',
    probe: async (idp) => {
      const token = await idp.server.context.tokens.logoutToken({ client: WEB, sub: 'user-0001-alice', sid: 's' });
      return Object.keys(decodeJwt(token)).sort();
    },
    clean: ['aud', 'events', 'exp', 'iat', 'iss', 'jti', 'sid', 'sub'],
    flawed: ['aud', 'events', 'exp', 'iat', 'iss', 'jti', 'nonce', 'sid', 'sub'],
  },
  {
    flaw: 'front-channel-no-sid',
    probe: async (idp) => {
      const { browser, idToken } = await signedIn(idp);
      const res = await browser.send(`${idp.issuer}/session/end?${new URLSearchParams({ id_token_hint: idToken })}`);
      const frames = readPage(await res.text(), res.url, res.status).frames ?? [];
      return frames.map((src) => [...new URL(src).searchParams.keys()]);
    },
    clean: [['iss', 'sid']],
    flawed: [['iss']],
  },
  {
    flaw: 'logout-hint-unverified',
    probe: async (idp) => {
      const { idToken } = await signedIn(idp);
      const payload = idToken.split('.')[1]!;
      const unsigned = `${Buffer.from(JSON.stringify({ ...decodeProtectedHeader(idToken), alg: 'none' })).toString(
        'base64url',
      )}.${payload}.`;
      const res = await idp.get(
        `/session/end?${new URLSearchParams({ id_token_hint: unsigned, post_logout_redirect_uri: LOGGED_OUT })}`,
      );
      return [res.status, res.headers.get('location')];
    },
    clean: [400, null],
    flawed: [303, LOGGED_OUT],
  },
  {
    flaw: 'logout-redirect-without-hint',
    probe: async (idp) => {
      const res = await idp.get(`/session/end?${new URLSearchParams({ post_logout_redirect_uri: LOGGED_OUT })}`);
      return [res.status, res.headers.get('location')];
    },
    clean: [400, null],
    flawed: [303, LOGGED_OUT],
  },
  {
    flaw: 'logout-needs-parameters',
    probe: async (idp) => {
      const { browser } = await signedIn(idp);
      // Signed in and without a hint, the user is asked to confirm the logout (RP-Initiated Logout §2).
      const res = await browser.send(`${idp.issuer}/session/end`);
      return [res.status, readPage(await res.text(), res.url, res.status).forms.length];
    },
    clean: [200, 1],
    flawed: [400, 0],
  },
];

describe('OIDC session, discovery and logout flaws', () => {
  flawTests(PROBES);
});
