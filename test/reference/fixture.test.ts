/**
 * The reference as a fixture for a client's tests (reference/fixture.ts): docs/fixture.md's
 * openid-client example, run as written; testLogin and autoLogin through GET /auth's checks; the
 * clock; claims of one's own released by scope; and a shapeClaims hook that cannot weaken a check.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  createReferenceServer,
  OAuthError,
  PROTECTED_CLAIMS,
  SEEDED_CLIENTS,
  SEEDED_USER,
  targetConfigFor,
  type ReferenceOptions,
  type UserConfig,
} from '../../reference/index.ts';
import { markedExamples } from '../../scripts/readme-examples.ts';
import { ALICE, authUrl, claimsOf, openLogin, pkce, redeem, SPA, token, useServer, WEB } from './helpers.ts';

const root = new URL('../../', import.meta.url);
const BOB: UserConfig = {
  username: 'bob',
  password: 'bob-test-password',
  sub: 'user-bob',
  claims: { email: 'bob@example.test', email_verified: true, roles: ['admin'], groups: ['staff'] },
};
const WITH_ROLES = {
  ...SEEDED_CLIENTS.confidential,
  allowedScope: `${SEEDED_CLIENTS.confidential.allowedScope} roles groups`,
};

describe('the docs/fixture.md example (shown verbatim: test/docs/readme-examples.test.ts)', () => {
  it('is in docs/fixture.md', () => {
    const examples = markedExamples(readFileSync(new URL('docs/fixture.md', root), 'utf8'));
    expect(examples.map((e) => e.path)).toContain('docs/examples/fixture-openid-client.ts');
  });

  it('runs: openid-client with testLogin, extra claims, shapeClaims and time travel', async () => {
    // The module asserts as it goes and closes its server; an assertion error rejects the import.
    await expect(import('../../docs/examples/fixture-openid-client.ts')).resolves.toBeDefined();
  }, 60_000);
});

describe('testLogin', () => {
  const ctx = useServer({ users: [SEEDED_USER, BOB] });
  const request = (extra = {}) => {
    const { verifier, challenge } = pkce();
    return {
      verifier,
      input: {
        clientId: WEB.clientId,
        redirectUri: WEB.redirectUri,
        scope: 'openid email',
        codeChallenge: challenge,
        codeChallengeMethod: 'S256' as const,
        nonce: 'n-1',
        state: 's-1',
        ...extra,
      },
    };
  };

  it('yields a code bound like a real login: redeemable once, with PKCE, nonce and the user', async () => {
    const { verifier, input } = request({ user: 'bob' });
    const { code, callbackUrl } = await ctx.server.testLogin(input);
    expect(callbackUrl.origin + callbackUrl.pathname).toBe(WEB.redirectUri);
    expect(Object.fromEntries(callbackUrl.searchParams)).toEqual({ code, state: 's-1', iss: ctx.issuer });
    const wrong = await redeem(ctx.issuer, WEB, { code, verifier: pkce().verifier, redirectUri: WEB.redirectUri });
    expect(wrong.json.error).toBe('invalid_grant');
    const again = await ctx.server.testLogin(input);
    const ok = await redeem(ctx.issuer, WEB, { code: again.code, verifier, redirectUri: WEB.redirectUri });
    expect(ok.status).toBe(200);
    expect(claimsOf(ok.json.id_token)).toMatchObject({
      sub: BOB.sub,
      aud: WEB.clientId,
      nonce: 'n-1',
      email: BOB.claims.email,
    });
    const replay = await redeem(ctx.issuer, WEB, { code: again.code, verifier, redirectUri: WEB.redirectUri });
    expect(replay.json.error).toBe('invalid_grant');
  });

  it('defaults to the first user and works for a third-party client (consent implied)', async () => {
    const { verifier, challenge } = pkce();
    const { code } = await ctx.server.testLogin({
      clientId: SPA.clientId,
      redirectUri: SPA.redirectUri,
      scope: 'openid profile',
      codeChallenge: challenge,
      codeChallengeMethod: 'S256',
    });
    const ok = await redeem(ctx.issuer, SPA, { code, verifier, redirectUri: SPA.redirectUri });
    expect(claimsOf(ok.json.id_token)).toMatchObject({ sub: ALICE.sub, name: ALICE.claims.name });
  });

  it.each([
    ['an unregistered redirect_uri', { redirectUri: `${WEB.redirectUri}/other` }, 'invalid_request'],
    ["a scope beyond the client's", { scope: 'openid api:write' }, 'invalid_scope'],
    ['an unknown client', { clientId: 'nobody' }, 'invalid_request'],
    ['a plain PKCE method', { codeChallengeMethod: 'plain' }, 'invalid_request'],
  ])('refuses %s as GET /auth does', async (_, extra, error) => {
    await expect(ctx.server.testLogin(request(extra).input)).rejects.toMatchObject({ error });
    await expect(ctx.server.testLogin(request(extra).input)).rejects.toBeInstanceOf(OAuthError);
  });

  it('requires PKCE where GET /auth does (a public client)', async () => {
    await expect(
      ctx.server.testLogin({ clientId: SPA.clientId, redirectUri: SPA.redirectUri, scope: 'openid' }),
    ).rejects.toMatchObject({ error: 'invalid_request' });
  });

  it('refuses an unknown user', async () => {
    await expect(ctx.server.testLogin(request({ user: 'mallory' }).input)).rejects.toThrow('no user "mallory"');
  });
});

describe('autoLogin', () => {
  const auto = useServer({ autoLogin: 'bob', users: [SEEDED_USER, BOB] });
  const plain = useServer();
  const params = (challenge: string, extra: Record<string, string> = {}) => ({
    response_type: 'code',
    client_id: WEB.clientId,
    redirect_uri: WEB.redirectUri,
    scope: 'openid',
    state: 'st',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  });

  it('GET /auth redirects with a code for the user, without a page', async () => {
    const { verifier, challenge } = pkce();
    const response = await fetch(authUrl(auto.issuer, params(challenge)), { redirect: 'manual' });
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get('location')!);
    expect(location.searchParams.get('state')).toBe('st');
    expect(location.searchParams.get('iss')).toBe(auto.issuer);
    const ok = await redeem(auto.issuer, WEB, {
      code: location.searchParams.get('code')!,
      verifier,
      redirectUri: WEB.redirectUri,
    });
    expect(claimsOf(ok.json.id_token).sub).toBe(BOB.sub);
  });

  it('leaves a request GET /auth refuses to the endpoint: error page, error redirect', async () => {
    const page = await fetch(
      authUrl(auto.issuer, params(pkce().challenge, { redirect_uri: 'https://evil.example/cb' })),
      { redirect: 'manual' },
    );
    expect(page.status).toBe(400);
    expect(page.headers.get('location')).toBeNull();
    const scope = await fetch(authUrl(auto.issuer, params(pkce().challenge, { scope: 'openid api:write' })), {
      redirect: 'manual',
    });
    expect(new URL(scope.headers.get('location')!).searchParams.get('error')).toBe('invalid_scope');
  });

  it('is off by default: the login page is shown', async () => {
    const { response } = await openLogin(authUrl(plain.issuer, params(pkce().challenge)));
    expect(response.status).toBe(200);
  });

  it('names an existing user', () => {
    expect(() => createReferenceServer({ autoLogin: 'nobody' })).toThrow('autoLogin: no user "nobody"');
  });
});

describe('the clock', () => {
  const ctx = useServer();

  it('moves every expiry: a code past its lifetime is refused, an access token expires', async () => {
    const { verifier, challenge } = pkce();
    const { code } = await ctx.server.testLogin({
      clientId: WEB.clientId,
      redirectUri: WEB.redirectUri,
      scope: 'openid',
      codeChallenge: challenge,
      codeChallengeMethod: 'S256',
    });
    ctx.server.clock.advance(61_000);
    try {
      const late = await redeem(ctx.issuer, WEB, { code, verifier, redirectUri: WEB.redirectUri });
      expect(late.json.error).toBe('invalid_grant');
    } finally {
      ctx.server.clock.reset();
    }
    const fresh = await ctx.server.testLogin({
      clientId: WEB.clientId,
      redirectUri: WEB.redirectUri,
      scope: 'openid',
      codeChallenge: challenge,
      codeChallengeMethod: 'S256',
    });
    const tokens = await redeem(ctx.issuer, WEB, { code: fresh.code, verifier, redirectUri: WEB.redirectUri });
    const userinfo = () =>
      fetch(`${ctx.issuer}/userinfo`, { headers: { authorization: `Bearer ${String(tokens.json.access_token)}` } });
    expect((await userinfo()).status).toBe(200);
    // Past the first-party lifetime (3600 s) and the 5 s the server tolerates (CLOCK_TOLERANCE).
    ctx.server.clock.advance(3660_000);
    try {
      expect((await userinfo()).status).toBe(401);
    } finally {
      ctx.server.clock.reset();
    }
  });

  it('issues tokens at the server time; set() and offset', async () => {
    const when = Date.UTC(2030, 0, 1);
    ctx.server.clock.set(when);
    try {
      expect(Math.abs(ctx.server.clock.offset - (when - Date.now()))).toBeLessThan(60_000);
      const minted = await token(
        ctx.issuer,
        { grant_type: 'client_credentials', scope: 'api:read' },
        { id: 'machine', secret: SEEDED_CLIENTS.machine.clientSecret },
      );
      const iat = Number(claimsOf(minted.json.access_token).iat);
      expect(Math.abs(iat - when / 1000)).toBeLessThan(60);
    } finally {
      ctx.server.clock.reset();
    }
    expect(ctx.server.clock.offset).toBe(0);
    expect(() => ctx.server.clock.advance(Number.NaN)).toThrow(TypeError);
  });
});

describe('claims of your own, released by scope', () => {
  const ctx = useServer({
    users: [BOB],
    clients: { confidential: WITH_ROLES },
    scopeClaims: { roles: ['roles'], groups: ['groups'] },
  });

  async function login(scope: string) {
    const { verifier, challenge } = pkce();
    const { code } = await ctx.server.testLogin({
      clientId: WEB.clientId,
      redirectUri: WEB.redirectUri,
      scope,
      codeChallenge: challenge,
      codeChallengeMethod: 'S256',
    });
    return redeem(ctx.issuer, WEB, { code, verifier, redirectUri: WEB.redirectUri });
  }

  it('releases a claim only with its scope, in the ID token and at userinfo', async () => {
    const withRoles = await login('openid roles');
    expect(claimsOf(withRoles.json.id_token)).toMatchObject({ roles: ['admin'] });
    expect(claimsOf(withRoles.json.id_token).groups).toBeUndefined();
    const info = await fetch(`${ctx.issuer}/userinfo`, {
      headers: { authorization: `Bearer ${String(withRoles.json.access_token)}` },
    });
    expect(await info.json()).toEqual({ sub: BOB.sub, roles: ['admin'] });
    const without = await login('openid email');
    expect(claimsOf(without.json.id_token).roles).toBeUndefined();
    // A standard claim the user lacks is left out, not sent as null.
    expect(claimsOf((await login('openid profile')).json.id_token)).not.toHaveProperty('name');
  });

  it('advertises the scopes and claims in discovery', async () => {
    const doc = (await (await fetch(`${ctx.issuer}/.well-known/openid-configuration`)).json()) as Record<
      string,
      string[]
    >;
    expect(doc.scopes_supported).toEqual(expect.arrayContaining(['openid', 'roles', 'groups']));
    expect(doc.claims_supported).toEqual(expect.arrayContaining(['sub', 'email', 'roles', 'groups']));
  });

  it.each(['sub', 'iss', 'nonce', 'cnf'])('refuses a user claim or a released claim named %s', (name) => {
    expect(() => createReferenceServer({ users: [{ ...BOB, claims: { ...BOB.claims, [name]: 'x' } }] })).toThrow(
      `"${name}"`,
    );
    expect(() => createReferenceServer({ scopeClaims: { roles: [name] } })).toThrow(`"${name}"`);
  });

  it('refuses a scopeClaims key that is not one scope value', () => {
    expect(() => createReferenceServer({ scopeClaims: { 'two scopes': ['x'] } })).toThrow('not a single scope value');
  });
});

describe('shapeClaims', () => {
  const shaping = (shapeClaims: ReferenceOptions['shapeClaims']) =>
    createReferenceServer({ users: [BOB], shapeClaims });

  async function tokensFrom(options: ReferenceOptions['shapeClaims']) {
    const server = shaping(options);
    // The refusal is reported to the app's error listeners (Koa logs it to stderr without one).
    const refusals: string[] = [];
    server.app.on('error', (err: Error) => refusals.push(err.message));
    const { issuer } = await server.listen(0, '127.0.0.1');
    try {
      const { verifier, challenge } = pkce();
      const { code } = await server.testLogin({
        clientId: WEB.clientId,
        redirectUri: WEB.redirectUri,
        scope: 'openid email',
        codeChallenge: challenge,
        codeChallengeMethod: 'S256',
        nonce: 'n',
      });
      const response = await redeem(issuer, WEB, { code, verifier, redirectUri: WEB.redirectUri });
      const userinfo =
        response.status === 200
          ? (
              await fetch(`${issuer}/userinfo`, {
                headers: { authorization: `Bearer ${String(response.json.access_token)}` },
              })
            ).status
          : undefined;
      return { ...response, userinfo, refusals };
    } finally {
      await server.close();
    }
  }

  it('adds claims to both kinds of token, with the user and client in view, and the tokens still verify', async () => {
    const got = await tokensFrom((kind, claims, { user, client }) => ({
      ...claims,
      kind,
      who: user?.username,
      via: client.clientId,
    }));
    expect(got.status).toBe(200);
    expect(claimsOf(got.json.access_token)).toMatchObject({
      kind: 'access_token',
      who: 'bob',
      via: WEB.clientId,
      sub: BOB.sub,
    });
    expect(claimsOf(got.json.id_token)).toMatchObject({ kind: 'id_token', who: 'bob', nonce: 'n' });
    expect(got.userinfo).toBe(200);
  });

  it.each(PROTECTED_CLAIMS.map((name) => [name]))(
    'cannot change, add or remove %s: no token is signed',
    async (name) => {
      for (const change of ['set', 'delete'] as const) {
        const got = await tokensFrom((_kind, claims) => {
          // Change the claim where it is present, add it where it is not; or delete it.
          if (change === 'delete' && !(name in claims)) return claims;
          const shaped: Record<string, unknown> = { ...claims };
          if (change === 'delete') delete shaped[name];
          else
            shaped[name] =
              name === 'exp' || name === 'iat' || name === 'nbf' || name === 'auth_time' ? 9_999_999_999 : 'forged';
          return shaped;
        });
        if (change === 'delete' && got.status === 200) {
          // Neither token carries this claim: nothing to delete, and the tokens are unchanged.
          expect(claimsOf(got.json.access_token)).not.toHaveProperty(name);
          continue;
        }
        expect(got.status, `${change} ${name}`).toBe(500);
        expect(got.json).toEqual({ error: 'server_error', error_description: expect.any(String) });
        expect(JSON.stringify(got.json)).not.toContain('shapeClaims');
        expect(got.refusals).toEqual([expect.stringContaining(`protected claim "${name}"`)]);
      }
    },
  );

  it("cannot make an expired token live: exp is the server's, and the check holds", async () => {
    const server = createReferenceServer({ shapeClaims: (_kind, claims) => ({ ...claims, note: 'shaped' }) });
    const { issuer } = await server.listen(0, '127.0.0.1');
    try {
      const { verifier, challenge } = pkce();
      const { code } = await server.testLogin({
        clientId: WEB.clientId,
        redirectUri: WEB.redirectUri,
        scope: 'openid',
        codeChallenge: challenge,
        codeChallengeMethod: 'S256',
      });
      const tokens = await redeem(issuer, WEB, { code, verifier, redirectUri: WEB.redirectUri });
      server.clock.advance(2 * 3600_000);
      const info = await fetch(`${issuer}/userinfo`, {
        headers: { authorization: `Bearer ${String(tokens.json.access_token)}` },
      });
      expect(info.status).toBe(401);
    } finally {
      await server.close();
    }
  });
});

describe('tokenEndpointAuthMethod', () => {
  const POST_ONLY = { ...SEEDED_CLIENTS.machine, tokenEndpointAuthMethod: 'client_secret_post' as const };
  const ctx = useServer({ clients: { machine: POST_ONLY } });

  it('pins the client to one method: the other one is invalid_client', async () => {
    const basic = await token(
      ctx.issuer,
      { grant_type: 'client_credentials', scope: 'api:read' },
      { id: POST_ONLY.clientId, secret: POST_ONLY.clientSecret },
    );
    expect(basic.status).toBe(401);
    expect(basic.json.error).toBe('invalid_client');
    const post = await token(ctx.issuer, {
      grant_type: 'client_credentials',
      scope: 'api:read',
      client_id: POST_ONLY.clientId,
      client_secret: POST_ONLY.clientSecret,
    });
    expect(post.status).toBe(200);
  });

  it('is checked against the secret, and the target config names it', () => {
    expect(() =>
      createReferenceServer({ clients: { machine: { ...SEEDED_CLIENTS.machine, tokenEndpointAuthMethod: 'none' } } }),
    ).toThrow('tokenEndpointAuthMethod none is for a client without a secret');
    expect(() =>
      createReferenceServer({
        clients: { public: { ...SEEDED_CLIENTS.public, tokenEndpointAuthMethod: 'client_secret_basic' } },
      }),
    ).toThrow('needs a clientSecret');
    expect(targetConfigFor(ctx.server).clients.machine?.authMethod).toBe('client_secret_post');
  });
});
