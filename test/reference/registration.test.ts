/**
 * Dynamic client registration (RFC 7591) and its management (RFC 7592) at the reference: off by
 * default; open or with an initial access token; metadata checked with the RFC error codes; the
 * registration access token guards read, update and delete; a registered client gets tokens until
 * it is deleted. Then each registration flaw, switched on alone, changes the behaviour it names.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlawName, ReferenceOptions } from '../../reference/index.ts';
import {
  codeFlowTokens,
  postForm,
  read,
  startReference,
  type HttpResult,
  type Json,
  type RunningReference,
} from '../support/reference.ts';

const servers: RunningReference[] = [];
async function start(options: ReferenceOptions = {}): Promise<RunningReference> {
  const ref = await startReference({ signingAlg: 'ES256', registration: true, ...options });
  servers.push(ref);
  return ref;
}
afterAll(() => Promise.all(servers.map((ref) => ref.close())));

const WEB_METADATA = {
  redirect_uris: ['https://rp.example.test/cb'],
  client_name: 'Registered RP',
  grant_types: ['authorization_code', 'refresh_token'],
  scope: 'openid profile offline_access',
};

async function register(ref: RunningReference, body: unknown, headers: Record<string, string> = {}) {
  return read(
    await fetch(ref.url('/register'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
  );
}

async function manage(
  method: 'GET' | 'PUT' | 'DELETE',
  uri: string,
  token: string | undefined,
  body?: unknown,
): Promise<HttpResult> {
  const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return read(await fetch(uri, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }));
}

const clientCredentials = (ref: RunningReference, reg: Json) =>
  postForm(
    ref.url('/token'),
    { grant_type: 'client_credentials' },
    {
      clientId: String(reg.client_id),
      clientSecret: String(reg.client_secret),
    },
  );

describe('off by default', () => {
  it('has no registration_endpoint and no /register', async () => {
    const ref = await start({ registration: undefined });
    const discovery = await read(await fetch(ref.url('/.well-known/openid-configuration')));
    expect(discovery.body).not.toHaveProperty('registration_endpoint');
    expect((await register(ref, WEB_METADATA)).status).toBe(404);
  });
});

describe('open registration', () => {
  let ref: RunningReference;
  beforeAll(async () => {
    ref = await start();
  });

  it('is advertised in discovery', async () => {
    const discovery = await read(await fetch(ref.url('/.well-known/openid-configuration')));
    expect(discovery.body.registration_endpoint).toBe(ref.url('/register'));
  });

  it('answers 201 with the credentials and the registered metadata (RFC 7591 §3.2.1)', async () => {
    const result = await register(ref, { ...WEB_METADATA, unknown_field: 'ignored' });
    expect(result.status).toBe(201);
    expect(result.headers.get('cache-control')).toBe('no-store');
    const { body } = result;
    expect(body).toMatchObject({
      ...WEB_METADATA,
      token_endpoint_auth_method: 'client_secret_basic',
      response_types: ['code'],
      registration_client_uri: ref.url(`/register/${body.client_id}`),
    });
    expect(body.client_secret).toEqual(expect.any(String));
    expect(body.registration_access_token).toEqual(expect.any(String));
    expect(body.client_secret_expires_at).toBe(Number(body.client_id_issued_at) + 24 * 3600);
    expect(body).not.toHaveProperty('unknown_field');
  });

  it('a registered client completes the code flow (PKCE, no consent for a confidential client)', async () => {
    const { body } = await register(ref, WEB_METADATA);
    const tokens = await codeFlowTokens(ref, {
      clientId: String(body.client_id),
      clientSecret: String(body.client_secret),
      redirectUris: WEB_METADATA.redirect_uris,
      allowedScope: WEB_METADATA.scope,
      grantTypes: ['authorization_code'],
      firstParty: true,
      name: 'x',
    });
    expect(tokens.access_token).toEqual(expect.any(String));
    expect(tokens.refresh_token).toEqual(expect.any(String));
  });

  it.each([
    ['no redirect_uris for the code grant', { grant_types: ['authorization_code'] }, 'invalid_redirect_uri'],
    ['a fragment', { redirect_uris: ['https://rp.example.test/cb#frag'] }, 'invalid_redirect_uri'],
    ['a relative URI', { redirect_uris: ['/cb'] }, 'invalid_redirect_uri'],
    ['a javascript: URI', { redirect_uris: ['javascript:alert(1)'] }, 'invalid_redirect_uri'],
    ['redirect_uris not an array', { redirect_uris: 'https://rp.example.test/cb' }, 'invalid_redirect_uri'],
    ['an unknown auth method', { ...WEB_METADATA, token_endpoint_auth_method: 'magic' }, 'invalid_client_metadata'],
    ['the password grant', { ...WEB_METADATA, grant_types: ['password'] }, 'invalid_client_metadata'],
    ['response_types token', { ...WEB_METADATA, response_types: ['token'] }, 'invalid_client_metadata'],
    ['an unknown scope', { ...WEB_METADATA, scope: 'openid admin' }, 'invalid_client_metadata'],
    ['client_name not a string', { ...WEB_METADATA, client_name: 7 }, 'invalid_client_metadata'],
    [
      'private_key_jwt without jwks',
      { ...WEB_METADATA, token_endpoint_auth_method: 'private_key_jwt' },
      'invalid_client_metadata',
    ],
    [
      'a private key in jwks',
      { ...WEB_METADATA, jwks: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] } },
      'invalid_client_metadata',
    ],
    [
      'a public client with client_credentials',
      { token_endpoint_auth_method: 'none', grant_types: ['client_credentials'] },
      'invalid_client_metadata',
    ],
    ['a JSON array', [], 'invalid_client_metadata'],
    ['JSON null', null, 'invalid_client_metadata'],
    ['broken JSON', '{"redirect_uris": [', 'invalid_client_metadata'],
  ])('refuses %s with 400 %s', async (_name, body, error) => {
    const result = await register(ref, body);
    expect(result.status).toBe(400);
    expect(result.body.error).toBe(error);
    expect(result.body.error_description).toEqual(expect.any(String));
  });

  it('refuses a form body and an oversized body with an RFC error, never a 500', async () => {
    const form = await read(
      await fetch(ref.url('/register'), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'redirect_uris=https://rp.example.test/cb',
      }),
    );
    expect([form.status, form.body.error]).toEqual([400, 'invalid_client_metadata']);
    const big = await register(ref, { ...WEB_METADATA, client_name: 'x'.repeat(70_000) });
    expect([big.status, big.body.error]).toEqual([400, 'invalid_request']);
  });

  it('reads, updates and deletes with the registration access token (RFC 7592 §2)', async () => {
    const { body: reg } = await register(ref, { ...WEB_METADATA, grant_types: ['client_credentials'] });
    const uri = String(reg.registration_client_uri);
    const token = String(reg.registration_access_token);

    const readBack = await manage('GET', uri, token);
    expect(readBack.status).toBe(200);
    expect(readBack.body).toMatchObject({ client_id: reg.client_id, client_secret: reg.client_secret });

    const {
      registration_access_token: _t,
      registration_client_uri: _u,
      client_secret_expires_at: _e,
      ...update
    } = readBack.body;
    const updated = await manage('PUT', uri, token, { ...update, client_name: 'Renamed' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ client_id: reg.client_id, client_name: 'Renamed' });
    const otherId = await manage('PUT', uri, token, { ...update, client_id: 'someone-else' });
    expect([otherId.status, otherId.body.error]).toEqual([400, 'invalid_request']);

    expect((await clientCredentials(ref, reg)).status).toBe(200);
    expect((await manage('DELETE', uri, token)).status).toBe(204);
    const after = await clientCredentials(ref, reg);
    expect([after.status, after.body.error]).toEqual([401, 'invalid_client']);
    expect((await manage('GET', uri, token)).status).toBe(401);
  });

  it('answers 401 to a missing or wrong registration access token, and for an unknown client', async () => {
    const { body: reg } = await register(ref, WEB_METADATA);
    const uri = String(reg.registration_client_uri);
    const missing = await manage('GET', uri, undefined);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer realm=/);
    const wrong = await manage('PUT', uri, 'd3JvbmctdG9rZW4', { ...WEB_METADATA, client_id: reg.client_id });
    expect([wrong.status, wrong.body.error]).toEqual([401, 'invalid_token']);
    const unknown = await manage('GET', ref.url('/register/dyn-nobody'), String(reg.registration_access_token));
    expect([unknown.status, unknown.body.error]).toEqual([401, 'invalid_token']);
    expect((await manage('DELETE', uri, 'd3JvbmctdG9rZW4')).status).toBe(401);
  });
});

describe('with an initial access token', () => {
  it('registers only with that Bearer token', async () => {
    const ref = await start({ registration: { initialAccessToken: 'initial-token-1' } });
    expect((await register(ref, WEB_METADATA)).status).toBe(401);
    const wrong = await register(ref, WEB_METADATA, { authorization: 'Bearer other-token' });
    expect([wrong.status, wrong.body.error]).toEqual([401, 'invalid_token']);
    expect((await register(ref, WEB_METADATA, { authorization: 'Bearer initial-token-1' })).status).toBe(201);
  });

  it('refuses bad settings when the server is made', async () => {
    await expect(start({ registration: { initialAccessToken: ' ' } })).rejects.toThrow(/initialAccessToken/);
    await expect(start({ registration: { clientLifetime: 5 } })).rejects.toThrow(/clientLifetime/);
  });
});

describe('the planted flaws', () => {
  const probes: {
    flaw: FlawName;
    probe: (ref: RunningReference) => Promise<unknown>;
    clean: unknown;
    flawed: unknown;
  }[] = [
    {
      flaw: 'registration-redirect-uris-optional',
      probe: async (ref) => (await register(ref, { grant_types: ['authorization_code'] })).status,
      clean: 400,
      flawed: 201,
    },
    {
      flaw: 'registration-accepts-fragment',
      probe: async (ref) => (await register(ref, { redirect_uris: ['https://rp.example.test/cb#x'] })).status,
      clean: 400,
      flawed: 201,
    },
    {
      flaw: 'registration-no-secret-expiry',
      probe: async (ref) => 'client_secret_expires_at' in (await register(ref, WEB_METADATA)).body,
      clean: true,
      flawed: false,
    },
    {
      flaw: 'registration-drops-metadata',
      probe: async (ref) => (await register(ref, WEB_METADATA)).body.redirect_uris,
      clean: WEB_METADATA.redirect_uris,
      flawed: undefined,
    },
    {
      flaw: 'registration-management-open',
      probe: async (ref) => {
        const { body } = await register(ref, WEB_METADATA);
        return (await manage('GET', String(body.registration_client_uri), undefined)).status;
      },
      clean: 401,
      flawed: 200,
    },
    {
      flaw: 'registration-delete-keeps-client',
      probe: async (ref) => {
        const { body } = await register(ref, { ...WEB_METADATA, grant_types: ['client_credentials'] });
        await manage('DELETE', String(body.registration_client_uri), String(body.registration_access_token));
        return (await clientCredentials(ref, body)).status;
      },
      clean: 401,
      flawed: 200,
    },
    {
      flaw: 'registration-client-unusable',
      probe: async (ref) => {
        const { body } = await register(ref, WEB_METADATA);
        const auth = new URL(ref.url('/auth'));
        auth.search = new URLSearchParams({
          response_type: 'code',
          client_id: String(body.client_id),
          redirect_uri: WEB_METADATA.redirect_uris[0]!,
          scope: 'openid',
          code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
          code_challenge_method: 'S256',
        }).toString();
        return (await fetch(auth, { redirect: 'manual' })).status;
      },
      clean: 200,
      flawed: 400,
    },
  ];

  it.each(probes)('$flaw: off the clean behaviour, on the flawed one', async ({ flaw, probe, clean, flawed }) => {
    expect(await probe(await start())).toEqual(clean);
    expect(await probe(await start({ flaws: [flaw] }))).toEqual(flawed);
  });
});

describe('malformed input', () => {
  it('any JSON value as metadata gets 201 or a 400 RFC error body, never a 500', async () => {
    const ref = await start();
    const metadataField = fc.constantFrom(
      'redirect_uris',
      'grant_types',
      'response_types',
      'token_endpoint_auth_method',
      'scope',
      'jwks',
      'contacts',
      'client_name',
      'post_logout_redirect_uris',
      'application_type',
    );
    const body = fc.oneof(fc.jsonValue(), fc.dictionary(metadataField, fc.jsonValue()));
    await fc.assert(
      fc.asyncProperty(body, async (value) => {
        const result = await register(ref, JSON.stringify(value));
        if (result.status === 201) return;
        expect(result.status).toBe(400);
        expect(['invalid_redirect_uri', 'invalid_client_metadata', 'invalid_request']).toContain(result.body.error);
      }),
      { numRuns: 150, seed: 20261125 },
    );
  }, 120_000); // 150 requests: generous on a loaded machine
});
