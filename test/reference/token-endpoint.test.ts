import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { SEEDED_CLIENTS, type ClientConfig } from '../../reference/index.ts';
import { claimsOf, MACHINE, SPA, token, useServer, WEB } from './helpers.ts';

const ODD: ClientConfig = {
  clientId: 'odd id:ü%+',
  clientSecret: 'p@ss:wörd +%/=',
  redirectUris: [],
  allowedScope: 'api:read',
  grantTypes: ['client_credentials'],
  firstParty: true,
  name: 'Odd',
};
const machine = { id: MACHINE.clientId, secret: MACHINE.clientSecret };
const cc = { grant_type: 'client_credentials' };

describe('client_credentials', () => {
  const ctx = useServer({ clients: [...Object.values(SEEDED_CLIENTS), ODD] });

  it('issues a Bearer JWT access token for the client and never a refresh token', async () => {
    const res = await token(ctx.issuer, cc, machine);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'api:read' });
    expect(res.json).not.toHaveProperty('refresh_token');
    expect(res.json).not.toHaveProperty('id_token');
    expect(claimsOf(res.json.access_token)).toMatchObject({
      sub: MACHINE.clientId,
      client_id: MACHINE.clientId,
      aud: ctx.issuer,
    });
  });

  it("refuses a scope beyond the client's allowed set with invalid_scope", async () => {
    for (const scope of ['api:write', 'api:read api:write', 'openid']) {
      expect((await token(ctx.issuer, { ...cc, scope }, machine)).json.error).toBe('invalid_scope');
    }
    expect((await token(ctx.issuer, { ...cc, scope: 'api:read' }, machine)).status).toBe(200);
  });

  it("ignores unrecognized parameters (RFC 6749 §3.2) and takes only the grant's own", async () => {
    const res = await token(ctx.issuer, { ...cc, code: 'x', audience: 'y', foo: 'bar' }, machine);
    expect(res.status).toBe(200);
  });

  it('decodes form-urlencoded Basic credentials (RFC 6749 §2.3.1)', async () => {
    const res = await token(ctx.issuer, cc, { id: ODD.clientId, secret: ODD.clientSecret! });
    expect(res.status).toBe(200);
    expect(claimsOf(res.json.access_token).client_id).toBe(ODD.clientId);
  });
});

describe('client authentication', () => {
  const ctx = useServer();
  const expectInvalidClient = (res: { status: number; headers: Headers; json: Record<string, unknown> }) => {
    expect(res.status).toBe(401);
    expect(res.json.error).toBe('invalid_client');
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic /);
    expect(res.headers.get('cache-control')).toBe('no-store');
  };

  it('a wrong secret via Basic is 401 invalid_client with WWW-Authenticate: Basic', async () => {
    expectInvalidClient(await token(ctx.issuer, cc, { id: MACHINE.clientId, secret: 'wrong' }));
  });

  it('a wrong secret via the body, an unknown client, and no credentials are invalid_client', async () => {
    expectInvalidClient(await token(ctx.issuer, { ...cc, client_id: MACHINE.clientId, client_secret: 'wrong' }));
    expectInvalidClient(await token(ctx.issuer, cc, { id: 'nobody', secret: 'x' }));
    expectInvalidClient(await token(ctx.issuer, cc));
    expectInvalidClient(await token(ctx.issuer, { ...cc, client_id: MACHINE.clientId }));
  });

  it('client_secret_post works', async () => {
    expect(
      (await token(ctx.issuer, { ...cc, client_id: MACHINE.clientId, client_secret: MACHINE.clientSecret })).status,
    ).toBe(200);
  });

  it('two authentication methods at once, or mismatching client ids, are invalid_request', async () => {
    const both = await token(ctx.issuer, { ...cc, client_secret: MACHINE.clientSecret }, machine);
    expect(both).toMatchObject({ status: 400, json: { error: 'invalid_request' } });
    const mismatch = await token(ctx.issuer, { ...cc, client_id: WEB.clientId }, machine);
    expect(mismatch).toMatchObject({ status: 400, json: { error: 'invalid_request' } });
  });

  it('malformed Basic credentials and other schemes are invalid_client', async () => {
    for (const authorization of [
      'Basic !!!',
      `Basic ${Buffer.from('no-colon').toString('base64')}`,
      `Basic ${Buffer.from('%zz:x').toString('base64')}`,
      'Bearer abc',
    ]) {
      const res = await request(ctx.issuer).post('/token').set('Authorization', authorization).type('form').send(cc);
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('invalid_client');
    }
  });

  it('a secret that differs only in length or case is refused', async () => {
    for (const secret of [
      MACHINE.clientSecret.slice(0, -1),
      `${MACHINE.clientSecret}x`,
      MACHINE.clientSecret.toUpperCase(),
    ]) {
      expectInvalidClient(await token(ctx.issuer, cc, { id: MACHINE.clientId, secret }));
    }
  });
});

describe('token endpoint errors (RFC 6749 §5.2)', () => {
  const ctx = useServer();

  it('no grant_type is invalid_request; an unknown one is unsupported_grant_type', async () => {
    expect(await token(ctx.issuer, {}, machine)).toMatchObject({ status: 400, json: { error: 'invalid_request' } });
    expect(await token(ctx.issuer, { grant_type: 'magic' }, machine)).toMatchObject({
      status: 400,
      json: { error: 'unsupported_grant_type' },
    });
  });

  it('a grant the client is not registered for is unauthorized_client', async () => {
    expect(await token(ctx.issuer, cc, { id: WEB.clientId, secret: WEB.clientSecret })).toMatchObject({
      status: 400,
      json: { error: 'unauthorized_client' },
    });
    expect(await token(ctx.issuer, { ...cc, client_id: SPA.clientId })).toMatchObject({
      status: 400,
      json: { error: 'unauthorized_client' },
    });
  });

  it(
    'every error carries Cache-Control: no-store, Pragma: no-cache and a JSON body with ' + 'error_description',
    async () => {
      const res = await token(ctx.issuer, { grant_type: 'magic' }, machine);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('pragma')).toBe('no-cache');
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.json.error_description).toEqual(expect.any(String));
    },
  );

  it(
    'plain Basic credentials (as most HTTP tools build them) work for ids and secrets without ' + 'special characters',
    async () => {
      const res = await request(ctx.issuer)
        .post('/token')
        .auth(MACHINE.clientId, MACHINE.clientSecret)
        .type('form')
        .send(cc);
      expect(res.status).toBe(200);
    },
  );
});
