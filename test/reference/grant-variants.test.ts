/**
 * The grant and session variants of the reference (reference/variants.ts): each against the plain reference, so that
 * every test shows the behaviour the variant changes and that it changes nothing else it names.
 */
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { SEEDED_USER, type UserConfig, type VariantName } from '../../reference/index.ts';
import { Browser, walk } from '../support/session-browser.ts';
import {
  authUrl,
  basic,
  claimsOf,
  headerOf,
  MACHINE,
  obtainCode,
  PARTNER,
  pkce,
  registerCodeClient,
  redeem,
  token,
  useServer,
  WEB,
  webAuth,
} from './helpers.ts';

const BOB: UserConfig = { ...SEEDED_USER, username: 'bob', password: 'bob-builder-77', sub: 'user-0002-bob' };

/** A code for WEB (or `client`) redeemed: its tokens. */
async function tokensOf(
  issuer: string,
  client: { clientId: string; clientSecret?: string; redirectUris: readonly string[] } = WEB,
  extra: Record<string, string> = {},
) {
  const got = await obtainCode(issuer, client, extra);
  const { status, json } = await redeem(issuer, client, got);
  expect(status).toBe(200);
  return json;
}

async function introspect(issuer: string, accessToken: unknown): Promise<boolean> {
  const res = await fetch(`${issuer}/introspect`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basic(webAuth.id, webAuth.secret),
    },
    body: new URLSearchParams({ token: String(accessToken) }),
  });
  return ((await res.json()) as { active: boolean }).active;
}

const refresh = (issuer: string, refreshToken: unknown, auth = webAuth, extra: Record<string, string> = {}) =>
  token(issuer, { grant_type: 'refresh_token', refresh_token: String(refreshToken), ...extra }, auth);

const partnerAuth = { id: PARTNER.clientId, secret: PARTNER.clientSecret };

/** The rows of a describe.each: the plain reference, then the variant. */
const plainAnd = (variant: VariantName): [string, VariantName[]][] => [
  ['plain', []],
  [variant, [variant]],
];

describe.each(plainAnd('revoke-previous-grant'))(
  'a second authorization of the user for the client (%s)',
  (name, variants) => {
    const ctx = useServer({ variants });
    const revokes = name === 'revoke-previous-grant';

    it(
      revokes ? "revokes the earlier grant's access and refresh tokens" : 'leaves the earlier grant alone',
      async () => {
        const first = await tokensOf(ctx.issuer);
        const other = await tokensOf(ctx.issuer, PARTNER);
        expect(await introspect(ctx.issuer, first.access_token)).toBe(true);
        const second = await tokensOf(ctx.issuer);
        expect(await introspect(ctx.issuer, first.access_token)).toBe(!revokes);
        const old = await refresh(ctx.issuer, first.refresh_token);
        expect(old.status).toBe(revokes ? 400 : 200);
        if (revokes) expect(old.json.error).toBe('invalid_grant');
        // The new grant works; the user's grant for another client is not touched.
        expect(await introspect(ctx.issuer, second.access_token)).toBe(true);
        expect((await refresh(ctx.issuer, second.refresh_token)).status).toBe(200);
        expect(await introspect(ctx.issuer, other.access_token)).toBe(true);
        expect((await refresh(ctx.issuer, other.refresh_token, partnerAuth)).status).toBe(200);
      },
    );

    it(revokes ? 'revokes a code of the earlier grant not yet redeemed' : 'a pending code stays good', async () => {
      const pending = await obtainCode(ctx.issuer, WEB);
      await tokensOf(ctx.issuer);
      const late = await redeem(ctx.issuer, WEB, pending);
      // The code is still redeemable once, but what it issues belongs to the revoked grant.
      expect(late.status).toBe(200);
      expect(await introspect(ctx.issuer, late.json.access_token)).toBe(!revokes);
      expect((await refresh(ctx.issuer, late.json.refresh_token)).status).toBe(revokes ? 400 : 200);
    });
  },
);

/** WEB's code request with a fresh S256 challenge, and `params` over it. */
function authUrlFor(issuer: string, params: Record<string, string> = {}): { url: string; verifier: string } {
  const { verifier, challenge } = pkce();
  const code = { response_type: 'code', client_id: WEB.clientId, redirect_uri: WEB.redirectUri, state: 'st' };
  const url = authUrl(issuer, {
    ...code,
    scope: 'openid',
    ...{ code_challenge: challenge, code_challenge_method: 'S256' },
    ...params,
  });
  return { url, verifier };
}

describe.each(plainAnd('single-session'))("a sign-in and the user's other sessions (%s)", (name, variants) => {
  const ctx = useServer({ variants, users: [SEEDED_USER, BOB] });
  const single = name === 'single-session';
  const signIn = async (user: UserConfig = SEEDED_USER) => {
    const browser = new Browser();
    expect((await walk(browser, ctx.issuer, authUrlFor(ctx.issuer).url, { user })).location).toBeDefined();
    return browser;
  };
  const promptNone = async (browser: Browser) =>
    (await walk(browser, ctx.issuer, authUrlFor(ctx.issuer, { prompt: 'none' }).url, { act: false })).location;

  it(single ? "ends the user's other session" : "keeps the user's other session", async () => {
    const first = await signIn();
    const bob = await signIn(BOB);
    // Another user's sign-in ends nothing.
    expect((await promptNone(first))?.searchParams.has('code')).toBe(true);
    const second = await signIn();
    const earlier = await promptNone(first);
    expect(earlier?.searchParams.get('error') ?? 'code').toBe(single ? 'login_required' : 'code');
    expect((await promptNone(second))?.searchParams.has('code')).toBe(true);
    expect((await promptNone(bob))?.searchParams.has('code')).toBe(true);
  });
});

describe.each(plainAnd('pkce-required'))('a confidential first-party client without PKCE (%s)', (name, variants) => {
  const ctx = useServer({ variants });
  const required = name === 'pkce-required';

  it(required ? 'is refused with invalid_request at the redirect URI' : 'gets a code', async () => {
    const withoutPkce = new URL(authUrlFor(ctx.issuer).url);
    for (const name of ['code_challenge', 'code_challenge_method']) withoutPkce.searchParams.delete(name);
    const url = withoutPkce.href;
    const res = await fetch(url, { redirect: 'manual' });
    if (required) {
      expect(res.status).toBe(303);
      const location = new URL(res.headers.get('location')!);
      expect(location.origin + location.pathname).toBe(WEB.redirectUri);
      expect(location.searchParams.get('error')).toBe('invalid_request');
      expect(location.searchParams.get('state')).toBe('st');
    } else {
      // The login page: the request was taken.
      expect(res.status).toBe(200);
    }
    // With PKCE, the same client gets its code either way.
    expect((await tokensOf(ctx.issuer)).access_token).toBeDefined();
  });
});

describe.each(plainAnd('refresh-without-id-token'))('a refresh with the openid scope (%s)', (name, variants) => {
  const ctx = useServer({ variants });

  it(name === 'plain' ? 'carries an ID token' : 'carries no ID token, only the tokens', async () => {
    const first = await tokensOf(ctx.issuer);
    expect(claimsOf(first.id_token).sub).toBe(SEEDED_USER.sub);
    const { status, json } = await refresh(ctx.issuer, first.refresh_token);
    expect(status).toBe(200);
    expect(json.access_token).toBeDefined();
    expect(json.refresh_token).toBeDefined();
    expect('id_token' in json).toBe(name === 'plain');
  });
});

describe.each(plainAnd('token-scope-omitted'))('the scope of a token response (%s)', (name, variants) => {
  const ctx = useServer({ variants });
  const omitted = name === 'token-scope-omitted';
  const machine = { id: MACHINE.clientId, secret: MACHINE.clientSecret };

  it(omitted ? 'is left out when it is the scope requested' : 'is always there', async () => {
    const code = await tokensOf(ctx.issuer, WEB, { scope: 'openid profile' });
    expect(code.scope).toBe(omitted ? undefined : 'openid profile');
    const same = await refresh(ctx.issuer, code.refresh_token);
    expect(same.json.scope).toBe(omitted ? undefined : 'openid profile');
    const narrower = await refresh(ctx.issuer, same.json.refresh_token, webAuth, { scope: 'profile openid' });
    expect(narrower.json.scope).toBe(omitted ? undefined : 'profile openid');
    const cc = await token(ctx.issuer, { grant_type: 'client_credentials', scope: 'api:read' }, machine);
    expect(cc.json.scope).toBe(omitted ? undefined : 'api:read');
  });

  it('is there when the client asked for no scope (the server chose it: RFC 6749 §5.1 REQUIRED)', async () => {
    const cc = await token(ctx.issuer, { grant_type: 'client_credentials' }, machine);
    expect(cc.status).toBe(200);
    expect(cc.json.scope).toBe('api:read');
  });
});

describe.each(plainAnd('found-redirects'))("the authorization endpoint's redirects (%s)", (name, variants) => {
  const ctx = useServer({ variants });
  const found = name === 'found-redirects';

  it(found ? 'are 302 after a GET, 303 after a POST' : 'are 303', async () => {
    const browser = new Browser();
    const { url } = authUrlFor(ctx.issuer);
    // The login POST: 303 either way (RFC 9700 §4.12).
    const login = await walk(browser, ctx.issuer, url);
    expect(login.location?.searchParams.has('code')).toBe(true);
    // A GET in the signed-in session answers the client at once.
    const again = await browser.send(authUrlFor(ctx.issuer).url);
    expect(again.status).toBe(found ? 302 : 303);
    expect(new URL(again.headers.get('location')!).searchParams.has('code')).toBe(true);
    // A GET whose error goes to the client.
    const refused = await browser.send(authUrlFor(ctx.issuer, { scope: 'openid not-a-scope' }).url);
    expect(refused.status).toBe(found ? 302 : 303);
    expect(new URL(refused.headers.get('location')!).searchParams.get('error')).toBe('invalid_scope');
    // The same request by POST (OIDC Core §3.1.2.1): 303 either way.
    const posted = new URL(authUrlFor(ctx.issuer).url);
    const byPost = await browser.send(`${ctx.issuer}/auth`, { form: Object.fromEntries(posted.searchParams) });
    expect(byPost.status).toBe(303);
    expect(new URL(byPost.headers.get('location')!).searchParams.has('code')).toBe(true);
  });
});

describe.each(plainAnd('signing-es256'))('the signing keys (%s)', (name, variants) => {
  const ctx = useServer({ variants, registration: true });
  const es256 = name === 'signing-es256';

  it(
    es256 ? 'sign ID tokens and access tokens ES256; RS256 beside it, listed and published' : 'are one RS256 key',
    async () => {
      const discovery = (await (await fetch(`${ctx.issuer}/.well-known/openid-configuration`)).json()) as {
        id_token_signing_alg_values_supported: string[];
      };
      expect(discovery.id_token_signing_alg_values_supported).toEqual(es256 ? ['ES256', 'RS256'] : ['RS256']);
      const jwks = createRemoteJWKSet(new URL(`${ctx.issuer}/jwks`));
      const published = (await (await fetch(`${ctx.issuer}/jwks`)).json()) as { keys: { kty: string }[] };
      expect(published.keys.map((k) => k.kty)).toEqual(es256 ? ['EC', 'RSA'] : ['RSA']);
      const tokens = await tokensOf(ctx.issuer);
      for (const jwt of [tokens.id_token, tokens.access_token]) {
        expect(headerOf(jwt).alg).toBe(es256 ? 'ES256' : 'RS256');
        await jwtVerify(String(jwt), jwks);
      }
    },
  );

  it('signs a registered client ID tokens with the alg it registered, RS256 when it named none', async () => {
    const registered = async (alg?: string) => {
      const res = await registerCodeClient(ctx.issuer, alg === undefined ? {} : { id_token_signed_response_alg: alg });
      type Registered = { client_id: string; client_secret: string; redirect_uris: string[]; error?: string };
      return { status: res.status, json: (await res.json()) as Registered };
    };
    const idTokenAlg = async (alg?: string) => {
      const { json } = await registered(alg);
      const client = {
        clientId: json.client_id,
        clientSecret: json.client_secret,
        redirectUris: json.redirect_uris,
      };
      return headerOf((await tokensOf(ctx.issuer, client)).id_token).alg;
    };
    expect(await idTokenAlg()).toBe('RS256');
    expect(await idTokenAlg('RS256')).toBe('RS256');
    if (es256) expect(await idTokenAlg('ES256')).toBe('ES256');
    const refused = await registered(es256 ? 'PS256' : 'ES256');
    expect(refused.status).toBe(400);
    expect(refused.json.error).toBe('invalid_client_metadata');
  });
});
