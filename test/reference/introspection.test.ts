/**
 * Introspection (RFC 7662): confidential clients only (§2.1); an active token is described with
 * scope, client_id, sub, exp, iat, iss and token_type (§2.2); an inactive, unknown or forged
 * token is {"active": false} and nothing else. token_type_hint is a hint only.
 */
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEEDED_CLIENTS, SEEDED_USER } from '../../reference/index.ts';
import {
  codeFlowTokens,
  introspect,
  postForm,
  read,
  revoke,
  startReference,
  tokenRequest,
  type RunningReference,
  type Tokens,
} from '../support/reference.ts';

let ref: RunningReference;
let tokens: Tokens;
const web = SEEDED_CLIENTS.confidential;

beforeAll(async () => {
  ref = await startReference();
  tokens = await codeFlowTokens(ref);
});
afterAll(() => ref?.close());

describe('client authentication', () => {
  it('is required: none gets 401 invalid_client with a Basic challenge', async () => {
    const result = await postForm(ref.url('/introspect'), { token: tokens.access_token });
    expect(result.status).toBe(401);
    expect(result.body.error).toBe('invalid_client');
    expect(result.headers.get('www-authenticate')).toMatch(/^Basic /);
    expect(result.headers.get('cache-control')).toBe('no-store');
    expect(result.body).not.toHaveProperty('active');
  });

  it('with a wrong secret gets 401 invalid_client', async () => {
    const result = await introspect(ref, tokens.access_token, { clientId: web.clientId, clientSecret: 'wrong' });
    expect(result.status).toBe(401);
    expect(result.body.error).toBe('invalid_client');
  });

  it('refuses public clients, which cannot authenticate', async () => {
    const result = await introspect(ref, tokens.access_token, { clientId: SEEDED_CLIENTS.public.clientId });
    expect(result.status).toBe(401);
    expect(result.body.error).toBe('invalid_client');
  });

  it('accepts client_secret_post and JSON bodies as well', async () => {
    const post = await read(
      await fetch(ref.url('/introspect'), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          token: tokens.access_token,
          client_id: web.clientId,
          client_secret: web.clientSecret,
        }),
      }),
    );
    expect(post.body.active).toBe(true);
    const json = await read(
      await fetch(ref.url('/introspect'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: tokens.access_token, client_id: web.clientId, client_secret: web.clientSecret }),
      }),
    );
    expect(json.body.active).toBe(true);
  });
});

describe('an active access token', () => {
  it('is described: active, scope, client_id, sub, exp, iat, iss, token_type (and aud, jti)', async () => {
    const claims = decodeJwt(tokens.access_token);
    const result = await introspect(ref, tokens.access_token);
    expect(result.status).toBe(200);
    expect(result.headers.get('cache-control')).toBe('no-store');
    expect(result.body).toStrictEqual({
      active: true,
      scope: web.allowedScope,
      client_id: web.clientId,
      sub: SEEDED_USER.sub,
      exp: claims.exp,
      iat: claims.iat,
      iss: ref.issuer,
      aud: ref.issuer,
      jti: claims.jti,
      token_type: 'Bearer',
    });
  });

  it('can be introspected by another confidential client (a resource server)', async () => {
    const result = await introspect(ref, tokens.access_token, SEEDED_CLIENTS.confidential2);
    expect(result.body.active).toBe(true);
    expect(result.body.client_id).toBe(web.clientId);
  });

  it('is found whatever the token_type_hint says', async () => {
    for (const hint of ['refresh_token', 'access_token', 'something_else']) {
      const result = await introspect(ref, tokens.access_token, web, { token_type_hint: hint });
      expect(result.body.active).toBe(true);
    }
  });
});

describe('a refresh token', () => {
  it('is described while active, with no token_type', async () => {
    const fresh = await codeFlowTokens(ref);
    const before = Math.floor(Date.now() / 1000);
    const result = await introspect(ref, fresh.refresh_token ?? '', web, { token_type_hint: 'access_token' });
    expect(result.body).toMatchObject({
      active: true,
      scope: web.allowedScope,
      client_id: web.clientId,
      sub: SEEDED_USER.sub,
      iss: ref.issuer,
    });
    expect(result.body).not.toHaveProperty('token_type');
    expect(Math.abs(Number(result.body.iat) - before)).toBeLessThanOrEqual(5);
    expect(Number(result.body.exp) - Number(result.body.iat)).toBe(ref.server.context.lifetimes.refreshTokenFirstParty);
  });

  it('is {"active": false} once rotated out', async () => {
    const fresh = await codeFlowTokens(ref);
    await tokenRequest(ref, web, { grant_type: 'refresh_token', refresh_token: fresh.refresh_token ?? '' });
    expect((await introspect(ref, fresh.refresh_token ?? '')).body).toStrictEqual({ active: false });
  });
});

describe('inactive tokens', () => {
  it.each([
    ['an unknown opaque string', 'b1n4ryjunk-b1n4ryjunk-b1n4ryjunk-b1n4ryjunk00'],
    ['a JWT-looking string', 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln'],
    ['one character', 'x'],
  ])('%s is {"active": false} and nothing else', async (_name, token) => {
    const result = await introspect(ref, token);
    expect(result.status).toBe(200);
    expect(result.body).toStrictEqual({ active: false });
  });

  it('a revoked access token and a revoked refresh token are {"active": false}', async () => {
    const fresh = await codeFlowTokens(ref);
    await revoke(ref, fresh.refresh_token ?? '');
    expect((await introspect(ref, fresh.access_token)).body).toStrictEqual({ active: false });
    expect((await introspect(ref, fresh.refresh_token ?? '')).body).toStrictEqual({ active: false });
  });

  it('a request without token gets invalid_request', async () => {
    const result = await postForm(ref.url('/introspect'), {}, web);
    expect(result.status).toBe(400);
    expect(result.body.error).toBe('invalid_request');
  });
});
