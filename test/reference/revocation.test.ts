/**
 * Revocation (RFC 7009): the client authenticates and may revoke only its own tokens (§2.1);
 * revoking a refresh token revokes its family and the access tokens issued from it; unknown,
 * invalid or already revoked tokens get 200 as well (§2.2). token_type_hint is a hint only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEEDED_CLIENTS } from '../../reference/index.ts';
import {
  codeFlowTokens,
  introspect,
  postForm,
  revoke,
  startReference,
  tokenRequest,
  userinfo,
  type RunningReference,
} from '../support/reference.ts';

let ref: RunningReference;
const web = SEEDED_CLIENTS.confidential;

beforeAll(async () => {
  ref = await startReference();
});
afterAll(() => ref?.close());

const refresh = (token: string | undefined, client = web) =>
  postForm(ref.url('/token'), { grant_type: 'refresh_token', refresh_token: token ?? '' }, client);

describe('client authentication', () => {
  it('is required: none gets 401 invalid_client', async () => {
    const tokens = await codeFlowTokens(ref);
    const result = await postForm(ref.url('/revoke'), { token: tokens.access_token });
    expect(result.status).toBe(401);
    expect(result.body.error).toBe('invalid_client');
    expect(result.headers.get('cache-control')).toBe('no-store');
    expect((await introspect(ref, tokens.access_token)).body.active).toBe(true);
  });

  it('with a wrong secret gets 401 invalid_client and revokes nothing', async () => {
    const tokens = await codeFlowTokens(ref);
    const result = await revoke(ref, tokens.refresh_token ?? '', { clientId: web.clientId, clientSecret: 'wrong' });
    expect(result.status).toBe(401);
    expect((await refresh(tokens.refresh_token)).status).toBe(200);
  });
});

describe('revoking an access token', () => {
  it('answers 200 with no-store, and the token is no longer accepted anywhere', async () => {
    const tokens = await codeFlowTokens(ref);
    const result = await revoke(ref, tokens.access_token, web, { token_type_hint: 'access_token' });
    expect(result.status).toBe(200);
    expect(result.headers.get('cache-control')).toBe('no-store');
    expect((await introspect(ref, tokens.access_token)).body).toStrictEqual({ active: false });
    expect((await userinfo(ref, tokens.access_token)).status).toBe(401);
  });

  it('leaves the refresh token of the same grant working', async () => {
    const tokens = await codeFlowTokens(ref);
    await revoke(ref, tokens.access_token);
    expect((await refresh(tokens.refresh_token)).status).toBe(200);
  });

  it('works whatever the token_type_hint says', async () => {
    const tokens = await codeFlowTokens(ref);
    expect((await revoke(ref, tokens.access_token, web, { token_type_hint: 'refresh_token' })).status).toBe(200);
    expect((await introspect(ref, tokens.access_token)).body.active).toBe(false);
  });
});

describe('revoking a refresh token', () => {
  it('ends the refresh token, its family, and the access tokens issued from it', async () => {
    const first = await codeFlowTokens(ref);
    const second = await tokenRequest(ref, web, {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token ?? '',
    });
    expect((await revoke(ref, second.refresh_token ?? '', web, { token_type_hint: 'refresh_token' })).status).toBe(200);

    const retry = await refresh(second.refresh_token);
    expect(retry.status).toBe(400);
    expect(retry.body.error).toBe('invalid_grant');
    for (const token of [first.access_token, second.access_token, second.refresh_token ?? '']) {
      expect((await introspect(ref, token)).body).toStrictEqual({ active: false });
    }
    expect((await userinfo(ref, second.access_token)).status).toBe(401);
  });

  it('works with the hint access_token too, and leaves other grants alone', async () => {
    const mine = await codeFlowTokens(ref);
    const other = await codeFlowTokens(ref);
    expect((await revoke(ref, mine.refresh_token ?? '', web, { token_type_hint: 'access_token' })).status).toBe(200);
    expect((await refresh(mine.refresh_token)).status).toBe(400);
    expect((await introspect(ref, other.access_token)).body.active).toBe(true);
    expect((await refresh(other.refresh_token)).status).toBe(200);
  });
});

describe('a client may revoke only its own tokens', () => {
  it('another client gets invalid_request and the tokens stay valid', async () => {
    const tokens = await codeFlowTokens(ref);
    for (const token of [tokens.access_token, tokens.refresh_token ?? '']) {
      const result = await revoke(ref, token, SEEDED_CLIENTS.confidential2);
      expect(result.status).toBe(400);
      expect(result.body.error).toBe('invalid_request');
    }
    expect((await introspect(ref, tokens.access_token)).body.active).toBe(true);
    expect((await refresh(tokens.refresh_token)).status).toBe(200);
  });
});

describe('tokens with nothing to revoke', () => {
  it.each([
    ['an unknown token', 'unknown-token-unknown-token-unknown-token-0000'],
    ['a garbage JWT', 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.'],
    ['a single character', 'x'],
  ])('%s gets 200', async (_name, token) => {
    const result = await revoke(ref, token);
    expect(result.status).toBe(200);
    expect(result.text).toBe('');
  });

  it('an already revoked token gets 200 again', async () => {
    const tokens = await codeFlowTokens(ref);
    expect((await revoke(ref, tokens.refresh_token ?? '')).status).toBe(200);
    expect((await revoke(ref, tokens.refresh_token ?? '')).status).toBe(200);
    expect((await revoke(ref, tokens.access_token)).status).toBe(200);
  });

  it('a request without token gets invalid_request', async () => {
    const result = await postForm(ref.url('/revoke'), {}, web);
    expect(result.status).toBe(400);
    expect(result.body.error).toBe('invalid_request');
  });
});

describe('a public client', () => {
  const spa = { ...SEEDED_CLIENTS.public, firstParty: true };
  let pub: RunningReference;
  beforeAll(async () => {
    // First-party here only so that the login page alone (no consent page) yields a code.
    pub = await startReference({ clients: { public: spa } });
  });
  afterAll(() => pub?.close());

  it('identifies itself with client_id and revokes its own refresh token', async () => {
    const tokens = await codeFlowTokens(pub, spa);
    const result = await postForm(
      pub.url('/revoke'),
      { token: tokens.refresh_token ?? '' },
      { clientId: spa.clientId },
    );
    expect(result.status).toBe(200);
    const retry = await postForm(
      pub.url('/token'),
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token ?? '' },
      { clientId: spa.clientId },
    );
    expect(retry.body.error).toBe('invalid_grant');
  });
});
