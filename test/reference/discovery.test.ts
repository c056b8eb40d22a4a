import request from 'supertest';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { createReferenceServer } from '../../reference/index.ts';
import { verifyPresentedAccessToken } from '../../reference/verify.ts';
import { MACHINE, token, useServer } from './helpers.ts';

describe('discovery document', () => {
  const ctx = useServer();

  it('has the required fields, every endpoint under the issuer, and S256 as the only PKCE method', async () => {
    const res = await request(ctx.issuer).get('/.well-known/openid-configuration').expect(200);
    expect(res.type).toBe('application/json');
    const d = res.body;
    const issuer = ctx.issuer;
    expect(d).toMatchObject({
      issuer,
      authorization_endpoint: `${issuer}/auth`,
      token_endpoint: `${issuer}/token`,
      jwks_uri: `${issuer}/jwks`,
      response_types_supported: ['code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none', 'private_key_jwt'],
      code_challenge_methods_supported: ['S256'],
    });
    expect(d.grant_types_supported).toEqual(
      expect.arrayContaining(['authorization_code', 'client_credentials', 'refresh_token']),
    );
    expect(d.scopes_supported).toEqual(
      expect.arrayContaining(['openid', 'profile', 'email', 'address', 'phone', 'offline_access']),
    );
    expect(d.claims_supported).toEqual(
      expect.arrayContaining([
        'sub',
        'iss',
        'name',
        'family_name',
        'picture',
        'email',
        'email_verified',
        'address',
        'phone_number',
      ]),
    );
  });
});

describe('JWKS', () => {
  const ctx = useServer();

  it('answers 200 directly with public keys only, each with kid, alg and use', async () => {
    const res = await request(ctx.issuer).get('/jwks').expect(200);
    expect(res.type).toBe('application/json');
    expect(res.body.keys).toHaveLength(1);
    for (const key of res.body.keys) {
      expect(key).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: expect.any(String) });
      for (const privateMember of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k']) expect(key).not.toHaveProperty(privateMember);
    }
  });

  it('verifies the tokens the server signs, choosing the key by kid', async () => {
    const jwks = createLocalJWKSet((await request(ctx.issuer).get('/jwks')).body);
    const { json } = await token(
      ctx.issuer,
      { grant_type: 'client_credentials' },
      { id: MACHINE.clientId, secret: MACHINE.clientSecret },
    );
    const { protectedHeader } = await jwtVerify(String(json.access_token), jwks, {
      issuer: ctx.issuer,
      algorithms: ['RS256'],
    });
    expect(protectedHeader.kid).toBe(ctx.server.context.keys.current.kid);
  });

  it('keeps the old key published after a rotation, so earlier tokens still verify', async () => {
    const before = await token(
      ctx.issuer,
      { grant_type: 'client_credentials' },
      { id: MACHINE.clientId, secret: MACHINE.clientSecret },
    );
    const oldKid = ctx.server.context.keys.current.kid;
    ctx.server.context.keys.rotate();
    const { body } = await request(ctx.issuer).get('/jwks');
    expect(body.keys.map((k: { kid: string }) => k.kid)).toEqual([ctx.server.context.keys.current.kid, oldKid]);
    await expect(
      verifyPresentedAccessToken(ctx.server.context, String(before.json.access_token)),
    ).resolves.toMatchObject({ claims: { sub: MACHINE.clientId } });
  });
});

describe('issuer with a path and other signing algorithms', () => {
  it('mounts every route under the path of a fixed issuer', async () => {
    const server = createReferenceServer({ issuer: 'https://idp.example.test/tenant-a/' });
    try {
      expect(server.issuer).toBe('https://idp.example.test/tenant-a');
      const res = await request(server.app.callback()).get('/tenant-a/.well-known/openid-configuration').expect(200);
      expect(res.body.issuer).toBe('https://idp.example.test/tenant-a');
      expect(res.body.token_endpoint).toBe('https://idp.example.test/tenant-a/token');
      await request(server.app.callback()).get('/tenant-a/jwks').expect(200);
      await request(server.app.callback()).get('/.well-known/openid-configuration').expect(404);
    } finally {
      await server.close();
    }
  });

  it.each(['ES256', 'PS256', 'EdDSA'] as const)('signs with %s when asked and advertises it', async (alg) => {
    const server = createReferenceServer({ issuer: 'https://idp.example.test', signingAlg: alg });
    try {
      const agent = request(server.app.callback());
      const d = (await agent.get('/.well-known/openid-configuration')).body;
      expect(d.id_token_signing_alg_values_supported).toEqual([alg]);
      const jwks = (await agent.get('/jwks')).body;
      expect(jwks.keys[0]).toMatchObject({ alg, use: 'sig' });
      const res = await agent
        .post('/token')
        .auth(MACHINE.clientId, MACHINE.clientSecret)
        .type('form')
        .send({ grant_type: 'client_credentials' })
        .expect(200);
      const { protectedHeader } = await jwtVerify(res.body.access_token, createLocalJWKSet(jwks), {
        algorithms: [alg],
      });
      expect(protectedHeader).toMatchObject({ alg, typ: 'at+jwt' });
    } finally {
      await server.close();
    }
  });

  it('refuses an issuer that is not an http(s) URL without query or fragment', () => {
    expect(() => createReferenceServer({ issuer: 'ftp://idp.example.test' })).toThrow(/http\(s\) URL/);
    expect(() => createReferenceServer({ issuer: 'https://idp.example.test/?a=b' })).toThrow(/without query/);
    expect(() => createReferenceServer({ issuer: 'not a url' })).toThrow(/not a URL/);
  });

  it('says clearly that the issuer is unknown before listen() when none is fixed', async () => {
    const server = createReferenceServer();
    expect(() => server.issuer).toThrow(/not known until listen/);
    const { issuer, port } = await server.listen(0, '127.0.0.1');
    expect(issuer).toBe(`http://127.0.0.1:${port}`);
    await server.close();
  });
});
