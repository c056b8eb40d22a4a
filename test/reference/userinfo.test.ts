/**
 * Userinfo (OIDC Core §5.3) with Bearer tokens (RFC 6750): GET and POST, the token in the
 * header or in a form body, claims by granted scope with the ID token's sub, and the RFC 6750
 * §3.1 challenges for a missing, invalid, expired or revoked token or a token without openid.
 */
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEEDED_CLIENTS, SEEDED_USER } from '../../reference/index.ts';
import {
  clientCredentialsToken,
  codeFlowTokens,
  read,
  revoke,
  startReference,
  userinfo,
  type RunningReference,
  type Tokens,
} from '../support/reference.ts';

let ref: RunningReference;
let tokens: Tokens;

beforeAll(async () => {
  ref = await startReference();
  tokens = await codeFlowTokens(ref, SEEDED_CLIENTS.confidential, 'openid profile email address phone');
});
afterAll(() => ref?.close());

const call = async (init: RequestInit & { path?: string } = {}) =>
  read(await fetch(ref.url(init.path ?? '/userinfo'), init));
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('a valid token', () => {
  it("gets the claims of its scope with the ID token's sub, by GET", async () => {
    const result = await userinfo(ref, tokens.access_token);
    expect(result.status).toBe(200);
    expect(result.headers.get('content-type')).toMatch(/^application\/json/);
    expect(result.headers.get('cache-control')).toBe('no-store');
    expect(result.body.sub).toBe(decodeJwt(tokens.id_token ?? '').sub);
    expect(result.body).toStrictEqual({ sub: SEEDED_USER.sub, ...SEEDED_USER.claims });
  });

  it('works by POST with the token in the header', async () => {
    const result = await call({ method: 'POST', headers: bearer(tokens.access_token) });
    expect(result.status).toBe(200);
    expect(result.body.sub).toBe(SEEDED_USER.sub);
  });

  it('works by POST with the token in a form body (RFC 6750 §2.2)', async () => {
    const result = await call({
      method: 'POST',
      headers: FORM,
      body: new URLSearchParams({ access_token: tokens.access_token }),
    });
    expect(result.status).toBe(200);
    expect(result.body.sub).toBe(SEEDED_USER.sub);
  });

  it.each([
    ['openid', {}],
    ['openid email', { email: SEEDED_USER.claims.email, email_verified: true }],
    [
      'openid profile phone',
      {
        name: SEEDED_USER.claims.name,
        family_name: SEEDED_USER.claims.family_name,
        picture: SEEDED_USER.claims.picture,
        phone_number: SEEDED_USER.claims.phone_number,
      },
    ],
    ['openid address api:read', { address: SEEDED_USER.claims.address }],
  ])('with scope "%s" gets exactly those scopes\' claims', async (scope, claims) => {
    const granted = await codeFlowTokens(ref, SEEDED_CLIENTS.confidential, scope);
    const result = await userinfo(ref, granted.access_token);
    expect(result.status).toBe(200);
    expect(result.body).toStrictEqual({ sub: SEEDED_USER.sub, ...claims });
  });
});

describe('requests without a usable token', () => {
  it('without any token get 401 and a Bearer challenge with no error code (RFC 6750 §3.1)', async () => {
    for (const init of [{}, { method: 'POST' }, { headers: { authorization: 'Basic d2ViLWFwcDpzZWNyZXQ=' } }]) {
      const result = await call(init);
      expect(result.status).toBe(401);
      expect(result.headers.get('www-authenticate')).toBe('Bearer realm="idp-conformance"');
    }
  });

  it('with a token in two places get 400 invalid_request (RFC 6750 §2)', async () => {
    const result = await call({
      method: 'POST',
      headers: { ...FORM, ...bearer(tokens.access_token) },
      body: new URLSearchParams({ access_token: tokens.access_token }),
    });
    expect(result.status).toBe(400);
    expect(result.body.error).toBe('invalid_request');
    expect(result.headers.get('www-authenticate')).toMatch(/^Bearer realm="idp-conformance", error="invalid_request"/);
  });

  it('with the token in the query string get 400 invalid_request', async () => {
    const result = await call({ path: `/userinfo?access_token=${tokens.access_token}` });
    expect(result.status).toBe(400);
    expect(result.body.error).toBe('invalid_request');
  });

  it('with malformed Bearer credentials get 401 invalid_token', async () => {
    const result = await call({ headers: { authorization: 'Bearer not a token' } });
    expect(result.status).toBe(401);
    expect(result.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
  });

  it('with a token without openid get 403 insufficient_scope naming openid', async () => {
    const machine = await clientCredentialsToken(ref, SEEDED_CLIENTS.machine);
    const result = await userinfo(ref, machine.access_token);
    expect(result.status).toBe(403);
    expect(result.body.error).toBe('insufficient_scope');
    expect(result.headers.get('www-authenticate')).toMatch(
      /error="insufficient_scope", error_description="[^"]*", scope="openid"$/,
    );
  });

  it('with a revoked token get 401 invalid_token', async () => {
    const granted = await codeFlowTokens(ref);
    expect((await revoke(ref, granted.access_token)).status).toBe(200);
    const result = await userinfo(ref, granted.access_token);
    expect(result.status).toBe(401);
    expect(result.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
  });

  it('with a token whose refresh family was revoked get 401 invalid_token', async () => {
    const granted = await codeFlowTokens(ref);
    expect((await revoke(ref, granted.refresh_token ?? '')).status).toBe(200);
    expect((await userinfo(ref, granted.access_token)).status).toBe(401);
  });
});

describe('an expired token', () => {
  let clock = Date.now();
  let timed: RunningReference;
  beforeAll(async () => {
    timed = await startReference({ now: () => clock });
  });
  afterAll(() => timed?.close());

  it('works until its exp and gets 401 invalid_token after it', async () => {
    const granted = await codeFlowTokens(timed);
    expect((await userinfo(timed, granted.access_token)).status).toBe(200);
    clock += Number(decodeJwt(granted.access_token).exp) * 1000 - clock + 10_000;
    const result = await userinfo(timed, granted.access_token);
    expect(result.status).toBe(401);
    expect(result.headers.get('www-authenticate')).toMatch(
      /error="invalid_token", error_description="the token has expired"/,
    );
  });
});
