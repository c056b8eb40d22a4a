import { describe, expect, it } from 'vitest';
import { claimsOf, obtainCode, partnerAuth, redeem, SPA, token, useServer, WEB, webAuth } from './helpers.ts';

describe('refresh_token', () => {
  let clock = Date.now();
  const ctx = useServer({ now: () => clock });

  /** A fresh grant for the web app: its first refresh token. */
  async function grant(scope = 'openid profile email offline_access'): Promise<string> {
    const { json } = await redeem(ctx.issuer, WEB, await obtainCode(ctx.issuer, WEB, { scope }));
    return String(json.refresh_token);
  }
  const refresh = (refreshToken: string, extra: Record<string, string> = {}, auth = webAuth) =>
    token(ctx.issuer, { grant_type: 'refresh_token', refresh_token: refreshToken, ...extra }, auth);

  it('rotates on every use: a new refresh token, a new access token, Bearer, uncached', async () => {
    const first = await grant();
    const res = await refresh(first);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
    expect(res.json).toMatchObject({
      token_type: 'Bearer',
      expires_in: 3600,
      scope: 'openid profile email offline_access',
    });
    expect(res.json.refresh_token).toEqual(expect.any(String));
    expect(res.json.refresh_token).not.toBe(first);
    const again = await refresh(String(res.json.refresh_token));
    expect(again.status).toBe(200);
    expect(again.json.access_token).not.toBe(res.json.access_token);
  });

  it('returns an ID token for openid, for the same user and client, without a nonce', async () => {
    const res = await refresh(await grant());
    const claims = claimsOf(res.json.id_token);
    expect(claims).toMatchObject({ iss: ctx.issuer, aud: WEB.clientId, sub: expect.any(String) });
    expect(claims).not.toHaveProperty('nonce');
  });

  it('a rotated-out token is refused and its replay revokes the whole family', async () => {
    const old = await grant();
    const rotated = await refresh(old);
    const newest = String(rotated.json.refresh_token);
    const replay = await refresh(old);
    expect(replay).toMatchObject({ status: 400, json: { error: 'invalid_grant' } });
    const afterReplay = await refresh(newest);
    expect(afterReplay).toMatchObject({ status: 400, json: { error: 'invalid_grant' } });
    const { store } = ctx.server.context;
    expect(await store.isAccessTokenActive(String(claimsOf(rotated.json.access_token).jti))).toBe(false);
  });

  it('an unknown refresh token is invalid_grant; a missing one is invalid_request', async () => {
    expect(await refresh('not-a-token-we-issued-aaaaaaaaaaaaaaaaaaaaaaaaaaa')).toMatchObject({
      status: 400,
      json: { error: 'invalid_grant' },
    });
    const missing = await token(ctx.issuer, { grant_type: 'refresh_token' }, webAuth);
    expect(missing.json.error).toBe('invalid_request');
  });

  it('is bound to its client', async () => {
    const mine = await grant();
    const other = await refresh(mine, {}, partnerAuth);
    expect(other).toMatchObject({ status: 400, json: { error: 'invalid_grant' } });
    expect((await refresh(mine)).status).toBe(200);
  });

  it('the scope may narrow for the access token while the grant keeps its scope; it may never widen', async () => {
    const first = await grant('openid profile offline_access');
    const narrowed = await refresh(first, { scope: 'openid' });
    expect(narrowed.status).toBe(200);
    expect(narrowed.json.scope).toBe('openid');
    expect(claimsOf(narrowed.json.access_token).scope).toBe('openid');
    expect(claimsOf(narrowed.json.id_token)).not.toHaveProperty('name');
    const back = await refresh(String(narrowed.json.refresh_token), { scope: 'openid profile' });
    expect(back.json.scope).toBe('openid profile');
    const wider = await refresh(String(back.json.refresh_token), { scope: 'openid profile email' });
    expect(wider).toMatchObject({ status: 400, json: { error: 'invalid_scope' } });
  });

  it('parallel uses of one token: at most one succeeds', async () => {
    const shared = await grant();
    const results = await Promise.all(Array.from({ length: 8 }, () => refresh(shared)));
    expect(results.filter((r) => r.status === 200).length).toBeLessThanOrEqual(1);
    for (const r of results.filter((x) => x.status !== 200)) expect(r.json.error).toBe('invalid_grant');
  });

  it('the public client refreshes with client_id only, with third-party lifetimes', async () => {
    const { json } = await redeem(
      ctx.issuer,
      SPA,
      await obtainCode(ctx.issuer, SPA, { scope: 'openid offline_access' }),
    );
    const res = await token(ctx.issuer, {
      grant_type: 'refresh_token',
      refresh_token: String(json.refresh_token),
      client_id: SPA.clientId,
    });
    expect(res.status).toBe(200);
    expect(Number(res.json.expires_in)).toBe(600);
  });

  it('expires', async () => {
    const first = await grant();
    clock += 31 * 24 * 3600 * 1000;
    expect((await refresh(first)).json.error).toBe('invalid_grant');
    clock = Date.now();
  });
});
