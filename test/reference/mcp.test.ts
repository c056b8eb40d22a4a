/**
 * `serve --mcp` (reference/mcp/): the protected endpoint {issuer}/mcp with its RFC 9728 metadata and challenge, the
 * audience it accepts, RFC 8707 resources through the code and refresh grants, the metadata's CIMD flag, and the
 * target config's resource section. Client ID Metadata Documents are in cimd.test.ts.
 */
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import { createReferenceServer, targetConfig } from '../../reference/index.ts';
import { newVerifier, s256, SPA, startReference, type ReferenceClient } from '../support/reference-client.ts';
import { CIMD_REDIRECT, cimdClient, DocumentServer, MCP_OPTIONS, mcpCall } from './mcp-support.ts';

const API = 'https://api.example.test';
let idp: ReferenceClient;
let plain: ReferenceClient;
const documents = new DocumentServer();
let resource: string;

beforeAll(async () => {
  [idp, plain] = await Promise.all([startReference(MCP_OPTIONS), startReference()]);
  await documents.start();
  resource = `${idp.issuer}/mcp`;
});
afterAll(() => Promise.all([idp.close(), plain.close(), documents.close()]));

/** A code flow of the seeded SPA with `query`, redeemed with `extra`: the token response. */
async function spaTokens(
  query: Record<string, string> = {},
  extra: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  const { code, verifier } = await idp.authorizeCode(SPA, query);
  const redeemed = await idp.redeem(code, SPA, { code_verifier: verifier, ...extra });
  return { status: redeemed.status, ...redeemed.body };
}

/** The error one authorization request of the SPA is redirected with, or "page N" (200: the login page). */
async function authorizeAnswer(target: ReferenceClient, query: string): Promise<string> {
  const verifier = newVerifier();
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: SPA.clientId,
    redirect_uri: SPA.redirectUris[0]!,
    scope: 'openid',
    state: 'st',
    code_challenge: s256(verifier),
    code_challenge_method: 'S256',
  });
  const response = await target.get(`/auth?${params}&${query}`);
  const location = response.headers.get('location');
  if (location === null || !location.startsWith(SPA.redirectUris[0]!)) return `page ${response.status}`;
  return new URL(location).searchParams.get('error') ?? '?';
}

describe('metadata', () => {
  it('the authorization server metadata says client_id_metadata_document_supported, as application/json', async () => {
    for (const path of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server']) {
      const response = await idp.get(path);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await response.json()).toMatchObject({ issuer: idp.issuer, client_id_metadata_document_supported: true });
    }
    const without = await plain.json('/.well-known/openid-configuration');
    expect(without).not.toHaveProperty('client_id_metadata_document_supported');
    expect((await plain.get('/.well-known/oauth-authorization-server')).status).toBe(404);
  });

  it('the protected resource metadata (RFC 9728 §3) names the resource exactly and the issuer', async () => {
    const response = await idp.get('/.well-known/oauth-protected-resource/mcp');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await response.json()).toEqual({
      resource,
      authorization_servers: [idp.issuer],
      bearer_methods_supported: ['header'],
      scopes_supported: ['api:read', 'api:write'],
      resource_name: expect.any(String),
    });
  });

  it("at the issuer's origin, whatever its path", async () => {
    const server = createReferenceServer({ mcp: true, issuer: 'https://idp.example/tenant', signingAlg: 'ES256' });
    const listening = createServer(server.app.callback());
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
    try {
      const address = listening.address();
      const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      const metadata = await fetch(`${base}/.well-known/oauth-protected-resource/mcp`);
      expect(await metadata.json()).toMatchObject({
        resource: 'https://idp.example/mcp',
        authorization_servers: ['https://idp.example/tenant'],
      });
      const challenge = (await fetch(`${base}/mcp`, { method: 'POST' })).headers.get('www-authenticate');
      expect(challenge).toContain('resource_metadata="https://idp.example/.well-known/oauth-protected-resource/mcp"');
      expect(server.context.security.resources).toEqual([API, 'https://idp.example/mcp']);
    } finally {
      listening.closeAllConnections();
      await new Promise((resolve) => listening.close(resolve));
      await server.close();
    }
  });

  it('nothing of it without the option', async () => {
    expect((await plain.get('/.well-known/oauth-protected-resource/mcp')).status).toBe(404);
    expect((await mcpCall(plain, undefined)).status).toBe(404);
  });

  it('the target config gains the resource section', () => {
    expect(targetConfig(idp.server).resource).toEqual({ url: resource, otherResource: API });
    expect(targetConfig(plain.server)).not.toHaveProperty('resource');
  });
});

describe('the protected endpoint', () => {
  const metadataUrl = () => `${idp.issuer}/.well-known/oauth-protected-resource/mcp`;

  it('without a token: 401 with the challenge naming the metadata (POST and GET)', async () => {
    for (const get of [false, true]) {
      const answer = await mcpCall(idp, undefined, 'initialize', { get });
      expect(answer.status).toBe(401);
      expect(answer.challenge).toMatch(new RegExp(`^Bearer resource_metadata="${metadataUrl()}"`));
      expect(answer.challenge).not.toContain('error=');
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('a token for it: the JSON-RPC answers; GET is not offered', async () => {
    const tokens = await spaTokens({ resource });
    expect(decodeJwt(String(tokens.access_token)).aud).toBe(resource);
    const token = String(tokens.access_token);
    const init = await mcpCall(idp, token, 'initialize');
    expect(init).toMatchObject({
      status: 200,
      body: { jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-11-25' } },
    });
    expect(await mcpCall(idp, token, 'tools/list')).toMatchObject({ status: 200, body: { result: { tools: [] } } });
    expect(await mcpCall(idp, token, 'server/discover')).toMatchObject({ status: 200, body: { result: {} } });
    expect(await mcpCall(idp, token, 'tools/call')).toMatchObject({ body: { error: { code: -32601 } } });
    expect((await mcpCall(idp, token, 'initialize', { get: true })).status).toBe(405);
  });

  it('refuses tokens of another audience, broken ones and expired ones with 401 invalid_token', async () => {
    const defaultAudience = String((await spaTokens()).access_token);
    expect(decodeJwt(defaultAudience).aud).toBe(idp.issuer);
    const forApi = String((await spaTokens({ resource: API })).access_token);
    expect(decodeJwt(forApi).aud).toBe(API);
    for (const token of [defaultAudience, forApi, 'not-a-jwt', `${defaultAudience.slice(0, -4)}AAAA`]) {
      const answer = await mcpCall(idp, token);
      expect(answer.status).toBe(401);
      expect(answer.challenge).toContain(`resource_metadata="${metadataUrl()}"`);
      expect(answer.challenge).toContain('error="invalid_token"');
    }
  });

  it('refuses an expired token', async () => {
    const ref = await startReference(MCP_OPTIONS);
    try {
      const { code, verifier } = await ref.authorizeCode(SPA, { resource: `${ref.issuer}/mcp` });
      const token = String((await ref.redeem(code, SPA, { code_verifier: verifier })).body.access_token);
      expect((await mcpCall(ref, token)).status).toBe(200);
      ref.server.clock.advance(24 * 3600 * 1000);
      expect((await mcpCall(ref, token)).status).toBe(401);
    } finally {
      await ref.close();
    }
  });

  it('never takes a token from the query string, even with a good one in the header', async () => {
    const token = String((await spaTokens({ resource })).access_token);
    // Alone, it is no token at all: 401 and the challenge.
    const alone = await mcpCall(idp, undefined, 'initialize', { query: `?access_token=${token}` });
    expect(alone.status).toBe(401);
    expect(alone.challenge).toMatch(/^Bearer resource_metadata="[^"]+", scope="api:read api:write"$/);
    // Beside the header, a second method (RFC 6750 §2): invalid_request.
    const both = await mcpCall(idp, token, 'initialize', { query: `?access_token=${token}` });
    expect(both.status).toBe(400);
    expect(both.challenge).toContain('error="invalid_request"');
  });

  it('a malformed request never gets a 5xx', async () => {
    const token = String((await spaTokens({ resource })).access_token);
    const post = (body: string, headers: Record<string, string>) =>
      fetch(`${idp.issuer}/mcp`, { method: 'POST', headers, body }).then((r) => r.status);
    const auth = { authorization: `Bearer ${token}` };
    expect(await post('{', { ...auth, 'content-type': 'application/json' })).toBe(400);
    expect(await post('[]', { ...auth, 'content-type': 'application/json' })).toBe(400);
    expect(await post('x', { ...auth, 'content-type': 'text/plain' })).toBe(400);
    expect(await post('{}', { authorization: 'Bearer', 'content-type': 'application/json' })).toBe(400);
    expect(await post('{}', { authorization: 'Bearer a b', 'content-type': 'application/json' })).toBe(401);
    expect(await post('{"jsonrpc":"2.0","method":"x"}', { ...auth, 'content-type': 'application/json' })).toBe(202);
  });
});

describe('resource (RFC 8707) in the code and refresh grants', () => {
  it('an unknown, fragment or relative resource at /auth is invalid_target, redirected', async () => {
    for (const bad of ['https://unknown.example.test/api', `${API}#frag`, 'api', `${API}/#`]) {
      expect(await authorizeAnswer(idp, `resource=${encodeURIComponent(bad)}`)).toBe('invalid_target');
    }
    expect(await authorizeAnswer(idp, `resource=${encodeURIComponent(API)}`)).toBe('page 200');
    expect(await authorizeAnswer(plain, `resource=${encodeURIComponent(API)}`)).toBe('page 200');
    // The MCP endpoint is a resource under the option only.
    const plainMcp = encodeURIComponent(`${plain.issuer}/mcp`);
    expect(await authorizeAnswer(plain, `resource=${plainMcp}`)).toBe('invalid_target');
  });

  it('repeated resources (pushed): the token request picks one of them, never another', async () => {
    const other = 'https://other.example.test';
    const ref = await startReference({ ...MCP_OPTIONS, resources: [API, other] });
    try {
      const mcp = `${ref.issuer}/mcp`;
      const twoQuery = `resource=${encodeURIComponent(API)}&resource=${encodeURIComponent(mcp)}`;
      expect(await authorizeAnswer(ref, twoQuery)).toBe('page 200');
      const flow = async () => {
        const verifier = newVerifier();
        const requestUri = await push(ref, s256(verifier), [API, mcp]);
        const result = await ref.authorize({ client: SPA, query: { request_uri: requestUri } });
        return { code: result.params.get('code') ?? '', verifier };
      };
      const first = await flow();
      const refused = await ref.redeem(first.code, SPA, { code_verifier: first.verifier, resource: other });
      expect(refused).toMatchObject({ status: 400, body: { error: 'invalid_target' } });
      const second = await flow();
      const picked = await ref.redeem(second.code, SPA, { code_verifier: second.verifier, resource: mcp });
      expect(picked.status).toBe(200);
      expect(decodeJwt(String(picked.body.access_token)).aud).toBe(mcp);
      // Several resources and none picked: the default audience.
      const third = await flow();
      const none = await ref.redeem(third.code, SPA, { code_verifier: third.verifier });
      expect(decodeJwt(String(none.body.access_token)).aud).toBe(ref.issuer);
    } finally {
      await ref.close();
    }
  });

  it("the code's only resource is the token's audience; the refresh keeps it and never widens", async () => {
    const tokens = await spaTokens({ resource });
    expect(tokens.status).toBe(200);
    const refreshed = await idp.refresh(String(tokens.refresh_token), SPA);
    expect(refreshed.status).toBe(200);
    expect(decodeJwt(String(refreshed.body.access_token)).aud).toBe(resource);
    const widened = await idp.refresh(String(refreshed.body.refresh_token), SPA, { resource: API });
    expect(widened).toMatchObject({ status: 400, body: { error: 'invalid_target' } });
    const narrowed = await idp.refresh(String(refreshed.body.refresh_token), SPA, { resource });
    expect(narrowed.status).toBe(200);
  });

  it("the fixture's testLogin takes resources too", async () => {
    const verifier = newVerifier();
    const { code } = await idp.server.testLogin({
      clientId: SPA.clientId,
      redirectUri: SPA.redirectUris[0]!,
      scope: 'openid',
      codeChallenge: s256(verifier),
      codeChallengeMethod: 'S256',
      resources: [resource],
    });
    const redeemed = await idp.redeem(code, SPA, { code_verifier: verifier });
    expect(decodeJwt(String(redeemed.body.access_token)).aud).toBe(resource);
  });

  it('a code without resources keeps the token request deciding (as before)', async () => {
    const tokens = await spaTokens({}, { resource: API });
    expect(decodeJwt(String(tokens.access_token)).aud).toBe(API);
  });

  it('PAR refuses an unknown resource with invalid_target', async () => {
    const bad = await fetch(`${idp.issuer}/par`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: parBody(s256(newVerifier()), ['https://unknown.example.test/']),
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'invalid_target' });
  });
});

/** A pushed authorization request of the SPA (RFC 9126) with `resources`: its request_uri. */
async function push(ref: ReferenceClient, challenge: string, resources: string[]): Promise<string> {
  const response = await fetch(`${ref.issuer}/par`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: parBody(challenge, resources),
  });
  expect(response.status).toBe(201);
  return String(((await response.json()) as Record<string, unknown>).request_uri);
}

function parBody(challenge: string, resources: string[]): string {
  return new URLSearchParams([
    ['client_id', SPA.clientId],
    ['response_type', 'code'],
    ['redirect_uri', SPA.redirectUris[0]!],
    ['scope', 'openid offline_access'],
    ['code_challenge', challenge],
    ['code_challenge_method', 'S256'],
    ...resources.map((r): [string, string] => ['resource', r]),
  ]).toString();
}

describe('registration under --mcp', () => {
  const register = (target: ReferenceClient, redirectUri: string) =>
    fetch(`${target.issuer}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' }),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));

  it('refuses an http redirect URI that is not loopback; takes loopback and https', async () => {
    expect(await register(idp, 'http://app.example.test/cb')).toMatchObject({
      status: 400,
      body: { error: 'invalid_redirect_uri' },
    });
    for (const ok of ['http://127.0.0.1:3000/cb', 'http://localhost/cb', 'http://[::1]:8/cb', 'https://a.test/cb'])
      expect((await register(idp, ok)).status).toBe(201);
  });

  it('without --mcp, registration is as before', async () => {
    const ref = await startReference({ registration: true });
    try {
      expect((await register(ref, 'http://app.example.test/cb')).status).toBe(201);
    } finally {
      await ref.close();
    }
  });
});

describe('a CIMD client is a public client in every grant', () => {
  it('code flow with consent, refresh, revocation', async () => {
    const url = documents.document();
    const client = cimdClient(url);
    const { code, verifier, result } = await idp.authorizeCode(client, { resource, scope: 'api:read' });
    expect(result.consentShown).toBe(true);
    expect(result.callback?.href.startsWith(CIMD_REDIRECT)).toBe(true);
    const redeemed = await idp.redeem(code, client, { code_verifier: verifier });
    expect(redeemed.status).toBe(200);
    expect(decodeJwt(String(redeemed.body.access_token))).toMatchObject({ aud: resource, client_id: url });
    expect((await mcpCall(idp, String(redeemed.body.access_token))).status).toBe(200);
    const refreshed = await idp.refresh(String(redeemed.body.refresh_token), client);
    expect(refreshed.status).toBe(200);
    const revoked = await fetch(`${idp.issuer}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: url, token: String(refreshed.body.refresh_token) }).toString(),
    });
    expect(revoked.status).toBe(200);
    expect((await idp.refresh(String(refreshed.body.refresh_token), client)).status).toBe(400);
  });

  it('PKCE is required', async () => {
    const client = cimdClient(documents.document());
    const result = await idp.authorize({
      client,
      query: { response_type: 'code', scope: 'api:read', state: 's' },
    });
    expect(result.params.get('error')).toBe('invalid_request');
  });
});
