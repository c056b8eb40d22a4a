/**
 * The fixture's autoLogin with the session parameters of OIDC Core §3.1.2.1, each through a real
 * GET /auth and a real code redemption: the user is always signed in, so prompt=none answers with
 * a code; prompt=login and max_age re-authenticate silently with a fresh auth_time; an
 * id_token_hint for another user is never answered for the auto-login user.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SEEDED_USER, type UserConfig } from '../../reference/index.ts';
import { authUrl, claimsOf, openLogin, pkce, redeem, SPA, useServer, WEB } from './helpers.ts';

const BOB: UserConfig = {
  username: 'bob',
  password: 'bob-test-password',
  sub: 'user-bob',
  claims: { email: 'bob@example.test', email_verified: true },
};
const T0 = Date.UTC(2031, 5, 1, 12, 0, 0);

const auto = useServer({ autoLogin: 'bob', users: [SEEDED_USER, BOB] });
afterEach(() => auto.server.clock.reset());

type Client = typeof WEB | typeof SPA;

function request(client: Client, extra: Record<string, string>, challenge: string): string {
  return authUrl(auto.issuer, {
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    scope: 'openid',
    state: 'st',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  });
}

/** GET /auth; the redirect's query (no redirect followed). */
async function authorize(client: Client, extra: Record<string, string>, challenge = pkce().challenge) {
  const response = await fetch(request(client, extra, challenge), { redirect: 'manual' });
  const location = response.headers.get('location');
  return { status: response.status, query: location ? new URL(location).searchParams : undefined };
}

/** GET /auth that must answer with a code; the ID token's claims after redeeming it. */
async function idTokenFor(extra: Record<string, string>, client: Client = WEB): Promise<Record<string, unknown>> {
  const { verifier, challenge } = pkce();
  const { status, query } = await authorize(client, extra, challenge);
  expect(status).toBe(303);
  expect(query?.get('error')).toBeNull();
  expect(query?.get('state')).toBe('st');
  const code = query?.get('code');
  expect(code).toBeTruthy();
  const tokens = await redeem(auto.issuer, client, { code: code!, verifier, redirectUri: client.redirectUri });
  expect(tokens.status).toBe(200);
  return claimsOf(tokens.json.id_token) as Record<string, unknown>;
}

describe('autoLogin and prompt, max_age, id_token_hint (OIDC Core §3.1.2.1)', () => {
  it('prompt=none: answers with a code (no page is needed), for a first- and a third-party client', async () => {
    expect((await idTokenFor({ prompt: 'none' })).sub).toBe(BOB.sub);
    expect((await idTokenFor({ prompt: 'none' }, SPA)).sub).toBe(BOB.sub);
  });

  it('prompt=login: re-authenticates silently; auth_time is the current server time', async () => {
    auto.server.clock.set(T0);
    expect((await idTokenFor({ prompt: 'login' })).auth_time).toBe(T0 / 1000);
    auto.server.clock.advance(600_000);
    const again = await idTokenFor({ prompt: 'login' });
    expect(again.sub).toBe(BOB.sub);
    expect(again.auth_time).toBe(T0 / 1000 + 600);
  });

  it('max_age: a fresh authentication, so auth_time is within max_age (0 included)', async () => {
    auto.server.clock.set(T0);
    await idTokenFor({});
    auto.server.clock.advance(3_600_000);
    const now = T0 / 1000 + 3600;
    expect((await idTokenFor({ max_age: '60' })).auth_time).toBe(now);
    expect((await idTokenFor({ max_age: '0' })).auth_time).toBe(now);
  });

  it('id_token_hint naming the auto-login user: a code, with prompt=none too', async () => {
    const hint = String((await redeemFresh()).id_token);
    expect((await idTokenFor({ id_token_hint: hint })).sub).toBe(BOB.sub);
    expect((await idTokenFor({ id_token_hint: hint, prompt: 'none' })).sub).toBe(BOB.sub);
  });

  it('id_token_hint naming another user: not for bob (login page; login_required with prompt=none)', async () => {
    const { verifier, challenge } = pkce();
    const { code } = await auto.server.testLogin({
      clientId: WEB.clientId,
      redirectUri: WEB.redirectUri,
      scope: 'openid',
      user: SEEDED_USER.username,
      codeChallenge: challenge,
      codeChallengeMethod: 'S256',
    });
    const alice = await redeem(auto.issuer, WEB, { code, verifier, redirectUri: WEB.redirectUri });
    const hint = String(alice.json.id_token);
    expect(claimsOf(hint).sub).toBe(SEEDED_USER.sub);
    const { response } = await openLogin(request(WEB, { id_token_hint: hint }, pkce().challenge));
    expect(response.status).toBe(200);
    const silent = await authorize(WEB, { id_token_hint: hint, prompt: 'none' });
    expect(silent.status).toBe(303);
    expect(silent.query?.get('error')).toBe('login_required');
    expect(silent.query?.get('code')).toBeNull();
  });

  it('a malformed prompt, max_age or hint gets the endpoint’s error, not a code', async () => {
    const malformed: Record<string, string>[] = [{ prompt: 'none login' }, { max_age: '-1' }, { id_token_hint: 'x' }];
    for (const extra of malformed) {
      const { status, query } = await authorize(WEB, extra);
      expect(status, JSON.stringify(extra)).toBe(303);
      expect(query?.get('error'), JSON.stringify(extra)).toBe('invalid_request');
      expect(query?.get('code'), JSON.stringify(extra)).toBeNull();
    }
  });
});

/** An ID token for bob, through autoLogin itself. */
async function redeemFresh(): Promise<Record<string, unknown>> {
  const { verifier, challenge } = pkce();
  const { query } = await authorize(WEB, {}, challenge);
  const tokens = await redeem(auto.issuer, WEB, { code: query!.get('code')!, verifier, redirectUri: WEB.redirectUri });
  return tokens.json;
}
