/**
 * Token exchange (RFC 8693) for clients allowed it: the subject is an access token of this
 * server, verified; the scope may only narrow (SPEC token rule 3) and stay within the client's
 * (SPEC errors 4); an actor token yields an act claim (§4.1); the response carries
 * issued_token_type and no refresh token.
 */
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEEDED_CLIENTS, SEEDED_USER } from '../../reference/index.ts';
import { algNone } from '../support/forge-jwt.ts';
import {
  ACCESS_TOKEN_TYPE,
  clientCredentialsToken,
  codeFlowTokens,
  exchange,
  introspect,
  revoke,
  startReference,
  TOKEN_EXCHANGE,
  type RunningReference,
  type Tokens,
} from '../support/reference.ts';

let ref: RunningReference;
let user: Tokens;
const exchanger = SEEDED_CLIENTS.exchange;

beforeAll(async () => {
  ref = await startReference();
  user = await codeFlowTokens(ref);
});
afterAll(() => ref?.close());

describe('a valid exchange', () => {
  it("downscopes a user's token for the exchange client (RFC 8693 §2.2.1)", async () => {
    const result = await exchange(ref, user.access_token, {
      scope: 'api:read',
      requested_token_type: ACCESS_TOKEN_TYPE,
    });
    expect(result.status).toBe(200);
    expect(result.headers.get('cache-control')).toBe('no-store');
    expect(result.body).toStrictEqual({
      access_token: expect.any(String),
      issued_token_type: ACCESS_TOKEN_TYPE,
      token_type: 'Bearer',
      expires_in: expect.any(Number),
      scope: 'api:read',
    });
    const claims = decodeJwt(String(result.body.access_token));
    expect(claims).toMatchObject({
      sub: SEEDED_USER.sub,
      client_id: exchanger.clientId,
      aud: ref.issuer,
      iss: ref.issuer,
      scope: 'api:read',
    });
    expect(claims).not.toHaveProperty('act');
    const described = await introspect(ref, String(result.body.access_token));
    expect(described.body).toMatchObject({
      active: true,
      sub: SEEDED_USER.sub,
      client_id: exchanger.clientId,
      scope: 'api:read',
    });
  });

  it("without scope keeps the subject's scope as far as the client may hold it", async () => {
    const result = await exchange(ref, user.access_token);
    expect(result.status).toBe(200);
    expect(result.body.scope).toBe('api:read');
  });

  it('narrows a client_credentials token of the exchange client itself', async () => {
    const own = await clientCredentialsToken(ref, exchanger, 'api:read api:write');
    const result = await exchange(ref, own.access_token, { scope: 'api:write' });
    expect(result.status).toBe(200);
    expect(result.body.scope).toBe('api:write');
    expect(decodeJwt(String(result.body.access_token)).sub).toBe(exchanger.clientId);
  });

  it('accepts this server as audience and resource', async () => {
    const result = await exchange(ref, user.access_token, { audience: ref.issuer, resource: ref.issuer });
    expect(result.status).toBe(200);
  });

  it("is revoked with the subject's grant", async () => {
    const fresh = await codeFlowTokens(ref);
    const exchanged = String((await exchange(ref, fresh.access_token, { scope: 'api:read' })).body.access_token);
    expect((await introspect(ref, exchanged)).body.active).toBe(true);
    await revoke(ref, fresh.refresh_token ?? '');
    expect((await introspect(ref, exchanged)).body).toStrictEqual({ active: false });
  });
});

describe('delegation with an actor token (RFC 8693 §4.1)', () => {
  it('records the actor in act, and an earlier actor nested inside', async () => {
    const actor = await clientCredentialsToken(ref, exchanger, 'api:read');
    const first = await exchange(ref, user.access_token, {
      scope: 'api:read',
      actor_token: actor.access_token,
      actor_token_type: ACCESS_TOKEN_TYPE,
    });
    expect(first.status).toBe(200);
    const delegated = String(first.body.access_token);
    expect(decodeJwt(delegated)).toMatchObject({ sub: SEEDED_USER.sub, act: { sub: exchanger.clientId } });
    expect((await introspect(ref, delegated)).body.act).toStrictEqual({ sub: exchanger.clientId });

    const machine = await clientCredentialsToken(ref, SEEDED_CLIENTS.machine);
    const second = await exchange(ref, delegated, {
      actor_token: machine.access_token,
      actor_token_type: ACCESS_TOKEN_TYPE,
    });
    expect(second.status).toBe(200);
    expect(decodeJwt(String(second.body.access_token)).act).toStrictEqual({
      sub: 'machine',
      act: { sub: exchanger.clientId },
    });
  });

  it.each([
    ['actor_token without actor_token_type', (actor: string) => ({ actor_token: actor })],
    ['actor_token_type without actor_token', () => ({ actor_token_type: ACCESS_TOKEN_TYPE })],
    [
      'an actor_token_type other than access_token',
      (actor: string) => ({ actor_token: actor, actor_token_type: 'urn:ietf:params:oauth:token-type:id_token' }),
    ],
    [
      'a forged actor token',
      (actor: string) => ({
        actor_token: algNone(actor, 'none', { sub: 'admin' }),
        actor_token_type: ACCESS_TOKEN_TYPE,
      }),
    ],
  ])('%s is invalid_request', async (_name, extra) => {
    const actor = await clientCredentialsToken(ref, exchanger, 'api:read');
    const result = await exchange(ref, user.access_token, extra(actor.access_token));
    expect(result.status).toBe(400);
    expect(result.body.error).toBe('invalid_request');
  });
});

describe('scope', () => {
  it("wider than the subject's is invalid_scope", async () => {
    const narrow = await clientCredentialsToken(ref, exchanger, 'api:read');
    const result = await exchange(ref, narrow.access_token, { scope: 'api:read api:write' });
    expect(result.status).toBe(400);
    expect(result.body.error).toBe('invalid_scope');
  });

  it("within the subject's but beyond the client's allowed scope is invalid_scope", async () => {
    const result = await exchange(ref, user.access_token, { scope: 'openid profile' });
    expect(result.status).toBe(400);
    expect(result.body.error).toBe('invalid_scope');
  });

  it('defaulted from a subject with nothing the client may hold is invalid_scope', async () => {
    const partner = await codeFlowTokens(ref, SEEDED_CLIENTS.confidential2);
    const result = await exchange(ref, partner.access_token);
    expect(result.status).toBe(400);
    expect(result.body.error).toBe('invalid_scope');
  });
});

describe('invalid requests', () => {
  it('from a client not allowed the grant get unauthorized_client', async () => {
    const result = await exchange(ref, user.access_token, {}, SEEDED_CLIENTS.confidential);
    expect(result.status).toBe(400);
    expect(result.body.error).toBe('unauthorized_client');
  });

  it('without client authentication get invalid_client', async () => {
    const result = await exchange(ref, user.access_token, {}, { clientId: exchanger.clientId, clientSecret: 'wrong' });
    expect(result.status).toBe(401);
    expect(result.body.error).toBe('invalid_client');
  });

  it.each([
    ['no subject_token', { subject_token: '' }],
    ['no subject_token_type', { subject_token_type: '' }],
    ['a refresh_token subject_token_type', { subject_token_type: 'urn:ietf:params:oauth:token-type:refresh_token' }],
    ['an id_token subject_token_type', { subject_token_type: 'urn:ietf:params:oauth:token-type:id_token' }],
    [
      'a refresh_token requested_token_type',
      { requested_token_type: 'urn:ietf:params:oauth:token-type:refresh_token' },
    ],
  ])('with %s get invalid_request', async (_name, extra) => {
    const result = await exchange(ref, user.access_token, extra);
    expect(result.status).toBe(400);
    expect(result.body.error).toBe('invalid_request');
  });

  it('with a refresh token as subject get invalid_request', async () => {
    const result = await exchange(ref, user.refresh_token ?? '');
    expect(result.body.error).toBe('invalid_request');
  });

  it('with a revoked subject get invalid_request', async () => {
    const fresh = await codeFlowTokens(ref);
    await revoke(ref, fresh.access_token);
    const result = await exchange(ref, fresh.access_token);
    expect(result.status).toBe(400);
    expect(result.body.error).toBe('invalid_request');
  });

  it('for another audience get invalid_target', async () => {
    const result = await exchange(ref, user.access_token, { audience: 'https://api.other.example' });
    expect(result.status).toBe(400);
    expect(result.body.error).toBe('invalid_target');
  });

  it('is advertised in grant_types_supported', async () => {
    const discovery = (await (await fetch(ref.url('/.well-known/openid-configuration'))).json()) as {
      grant_types_supported: string[];
    };
    expect(discovery.grant_types_supported).toContain(TOKEN_EXCHANGE);
  });
});
