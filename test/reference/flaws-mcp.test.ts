/**
 * The MCP flaws (issue 44), on a server with `mcp`, `registration` and `cimdAllowLoopback` (test/matrix/opt-in.ts's
 * FLAW_OPTIONS): each changes the behaviour it names and nothing else on the clean path. Documents come from a
 * loopback server of the test (mcp-support.ts).
 */
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe } from 'vitest';
import { newVerifier, s256, SPA, type ReferenceClient } from '../support/reference-client.ts';
import { flawTests, type FlawProbe } from './flaw-matrix.ts';
import { CIMD_REDIRECT, DocumentServer, MCP_OPTIONS, mcpCall } from './mcp-support.ts';

const documents = new DocumentServer();
beforeAll(() => documents.start());
afterAll(() => documents.close());

/** GET /auth for a document's URL: the status (200 the login page, 400 the error page) or the redirect's error. */
async function authorizeAs(idp: ReferenceClient, clientId: string, redirectUri = CIMD_REDIRECT): Promise<string> {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: 'api:read',
    code_challenge: s256(newVerifier()),
    code_challenge_method: 'S256',
  });
  const response = await idp.get(`/auth?${query}`);
  const location = response.headers.get('location');
  return location === null ? `page ${response.status}` : (new URL(location).searchParams.get('error') ?? 'redirect');
}

/** The SPA's access token from a code flow with `query`. */
async function spaToken(idp: ReferenceClient, query: Record<string, string> = {}): Promise<string> {
  return String((await idp.tokensFor(SPA, query)).access_token);
}

const register = (idp: ReferenceClient, redirectUri: string) =>
  fetch(`${idp.issuer}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' }),
  }).then((r) => r.status);

const PROBES: FlawProbe[] = [
  {
    flaw: 'as-metadata-text-plain',
    probe: async (idp) =>
      (await idp.get('/.well-known/oauth-authorization-server')).headers.get('content-type')?.split(';')[0],
    clean: 'application/json',
    flawed: 'text/plain',
  },
  {
    flaw: 'cimd-client-id-unchecked',
    probe: (idp) =>
      authorizeAs(
        idp,
        documents.serve({
          body: JSON.stringify({ client_id: 'https://other.test/c', redirect_uris: [CIMD_REDIRECT] }),
        }),
      ),
    clean: 'page 400',
    flawed: 'page 200',
  },
  {
    flaw: 'cimd-redirect-unchecked',
    probe: (idp) => authorizeAs(idp, documents.document(), 'http://127.0.0.1:9/not-listed'),
    clean: 'page 400',
    flawed: 'page 200',
  },
  {
    flaw: 'cimd-bad-document-accepted',
    probe: async (idp) => [
      await authorizeAs(idp, documents.serve({ body: 'not json' })),
      await authorizeAs(idp, documents.serve({ body: (url) => JSON.stringify({ client_id: url }) })),
      await authorizeAs(idp, documents.document({ client_name: 'x'.repeat(8 * 1024) })),
    ],
    clean: ['page 400', 'page 400', 'page 400'],
    flawed: ['page 200', 'page 200', 'page 200'],
  },
  {
    flaw: 'resource-ignored-in-code-flow',
    probe: async (idp) => {
      const unknown = await idp.get(
        `/auth?${new URLSearchParams({
          response_type: 'code',
          client_id: SPA.clientId,
          redirect_uri: SPA.redirectUris[0]!,
          scope: 'openid',
          code_challenge: s256(newVerifier()),
          code_challenge_method: 'S256',
          resource: 'https://unknown.example.test/',
        })}`,
      );
      const error = new URL(unknown.headers.get('location') ?? 'x:', idp.issuer).searchParams.get('error');
      const aud = decodeJwt(await spaToken(idp, { resource: `${idp.issuer}/mcp` })).aud === `${idp.issuer}/mcp`;
      return { error, audienceIsTheResource: aud };
    },
    clean: { error: 'invalid_target', audienceIsTheResource: true },
    flawed: { error: null, audienceIsTheResource: false },
  },
  {
    flaw: 'prm-resource-mismatch',
    probe: async (idp) =>
      (await idp.json('/.well-known/oauth-protected-resource/mcp')).resource === `${idp.issuer}/mcp`,
    clean: true,
    flawed: false,
  },
  {
    flaw: 'prm-challenge-without-metadata',
    probe: async (idp) => (await mcpCall(idp, undefined)).challenge?.includes('resource_metadata='),
    clean: true,
    flawed: false,
  },
  {
    flaw: 'rs-audience-unchecked',
    probe: async (idp) => [
      (await mcpCall(idp, await spaToken(idp))).status,
      (await mcpCall(idp, await spaToken(idp, { resource: 'https://api.example.test' }))).status,
    ],
    clean: [401, 401],
    flawed: [200, 200],
  },
  {
    flaw: 'rs-query-token-accepted',
    probe: async (idp) => {
      const token = await spaToken(idp, { resource: `${idp.issuer}/mcp` });
      return (await mcpCall(idp, undefined, 'initialize', { query: `?access_token=${token}` })).status;
    },
    clean: 401,
    flawed: 200,
  },
  {
    flaw: 'registration-http-redirect-accepted',
    probe: (idp) => register(idp, 'http://app.example.test/callback'),
    clean: 400,
    flawed: 201,
  },
];

describe('MCP flaws', () => {
  flawTests(PROBES, MCP_OPTIONS);
});
