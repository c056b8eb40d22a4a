/**
 * openid-client 6 (a certified relying-party library, with its defaults) over the OIDC session
 * features: a silent prompt=none authorization in the same browser, max_age with auth_time
 * checked by the library, and RP-initiated logout through its end-session URL.
 */
import * as client from 'openid-client';
import { describe, expect, it } from 'vitest';
import { Browser, walk } from '../support/session-browser.ts';
import { ALICE, useServer, WEB } from './helpers.ts';

const insecure = { execute: [client.allowInsecureRequests] };

describe('openid-client with login sessions and logout', () => {
  const ctx = useServer();

  async function authorize(config: client.Configuration, browser: Browser, extra: Record<string, string> = {}) {
    const pkceCodeVerifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: WEB.redirectUri,
      scope: 'openid profile',
      state,
      nonce,
      code_challenge: await client.calculatePKCECodeChallenge(pkceCodeVerifier),
      code_challenge_method: 'S256',
      ...extra,
    });
    const result = await walk(browser, ctx.issuer, url.href, { act: extra.prompt !== 'none' });
    expect(result.location?.href.startsWith(WEB.redirectUri), JSON.stringify(result)).toBe(true);
    const tokens = await client.authorizationCodeGrant(config, result.location!, {
      pkceCodeVerifier,
      expectedState: state,
      expectedNonce: nonce,
      ...(extra.max_age ? { maxAge: Number(extra.max_age) } : {}),
    });
    return { tokens, pages: result.pages };
  }

  it(
    'signs in, then gets tokens silently with prompt=none and max_age, then logs out through ' + 'end_session_endpoint',
    async () => {
      const config = await client.discovery(new URL(ctx.issuer), WEB.clientId, WEB.clientSecret, undefined, insecure);
      const browser = new Browser();
      const first = await authorize(config, browser);
      expect(first.pages).toEqual(['login']);
      const idToken = first.tokens.id_token!;

      const silent = await authorize(config, browser, { prompt: 'none', max_age: '600' });
      expect(silent.pages).toEqual([]);
      expect(silent.tokens.claims()).toMatchObject({ sub: ALICE.sub, auth_time: first.tokens.claims()!.auth_time });

      const state = client.randomState();
      const logout = client.buildEndSessionUrl(config, {
        id_token_hint: idToken,
        post_logout_redirect_uri: WEB.postLogoutRedirectUris![0]!,
        state,
      });
      const res = await browser.send(logout.href);
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe(`${WEB.postLogoutRedirectUris![0]!}?state=${state}`);

      const after = client.buildAuthorizationUrl(config, {
        redirect_uri: WEB.redirectUri,
        scope: 'openid',
        prompt: 'none',
        state: 's',
      });
      const { location } = await walk(browser, ctx.issuer, after.href, { act: false });
      expect(location?.searchParams.get('error')).toBe('login_required');
    },
  );
});
