/**
 * The MCP SDK interop module's set-up does what interop/mcp-sdk/ says, so the catalog's verdicts on it judge the MCP
 * TypeScript SDK 1.32.2 and not the set-up: the router's RFC 8414 metadata (issuer with the slash, registration) and
 * the RFC 9728 metadata of /mcp, the bearer middleware's challenge, the demo provider's code flow without a login,
 * the --oauth-strict resource binding (a code for another resource does not redeem; a token for /mcp opens it), and
 * the router's rate limiting off. Over plain HTTP on 127.0.0.1; skipped when npm ci cannot run here.
 */
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import idp from '../../interop/mcp-sdk/index.ts';
import { useStartedIdp } from './npm-idp.ts';

const on = useStartedIdp<never>(idp, 180_000);

/** The MCP endpoint: the resource the issuer's origin serves at /mcp. */
const mcpUrl = () => new URL('/mcp', on.issuer).href;

const CALLBACK = 'http://127.0.0.1:9/callback/test';

const json = async (res: Response) => (await res.json()) as Record<string, unknown>;

/** A client registered as an MCP client does (RFC 7591): public, one loopback redirect URI. */
async function register(): Promise<string> {
  const res = await fetch(new URL('/register', on.issuer), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [CALLBACK], token_endpoint_auth_method: 'none', client_name: 'test' }),
  });
  expect(res.status).toBe(201);
  return String((await json(res)).client_id);
}

/** A code for `resource`, from the authorization endpoint's first answer (no login page comes), and its verifier. */
async function code(clientId: string, resource: string) {
  const verifier = randomBytes(32).toString('base64url');
  const query = new URLSearchParams({
    client_id: clientId,
    redirect_uri: CALLBACK,
    response_type: 'code',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: 'st-1',
    resource,
  });
  const res = await fetch(new URL(`/authorize?${query}`, on.issuer), { redirect: 'manual' });
  expect(res.status).toBe(302);
  const back = new URL(res.headers.get('location') ?? 'http://invalid/');
  expect(back.origin + back.pathname).toBe(CALLBACK);
  return { code: back.searchParams.get('code') ?? '', verifier };
}

const redeem = (clientId: string, c: { code: string; verifier: string }) =>
  fetch(new URL('/token', on.issuer), {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: clientId,
      code: c.code,
      code_verifier: c.verifier,
      redirect_uri: CALLBACK,
    }),
  });

const initialize = (token?: string) =>
  fetch(mcpUrl(), {
    method: 'POST',
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
    }),
  });

describe('the MCP TypeScript SDK 1.32.2 as interop/mcp-sdk sets it up', () => {
  it('publishes the router metadata (RFC 8414) and the MCP endpoint metadata (RFC 9728) on one origin', async (ctx) => {
    if (on.unavailable) ctx.skip(on.unavailable);
    const origin = new URL(on.issuer).origin;
    expect(on.issuer).toBe(`${origin}/`);
    const as = await json(await fetch(`${origin}/.well-known/oauth-authorization-server`));
    expect(as).toMatchObject({
      issuer: on.issuer,
      registration_endpoint: `${origin}/register`,
      code_challenge_methods_supported: ['S256'],
    });
    const prm = await json(await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`));
    expect(prm).toMatchObject({ resource: mcpUrl(), authorization_servers: [on.issuer] });
  });

  it('challenges a request without a token at /mcp with its resource metadata URL', async (ctx) => {
    if (on.unavailable) ctx.skip(on.unavailable);
    const res = await initialize();
    expect(res.status).toBe(401);
    const origin = new URL(on.issuer).origin;
    expect(res.headers.get('www-authenticate')).toContain(
      `resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
    );
  });

  it('gives a code without a login, redeems it only for /mcp (--oauth-strict); its token opens /mcp', async (ctx) => {
    if (on.unavailable) ctx.skip(on.unavailable);
    const clientId = await register();
    const other = await redeem(clientId, await code(clientId, 'https://api.example.test'));
    expect(other.status).not.toBe(200);
    const res = await redeem(clientId, await code(clientId, mcpUrl()));
    expect(res.status).toBe(200);
    const token = String((await json(res)).access_token);
    const opened = await initialize(token);
    expect(opened.status).toBe(200);
    expect(await json(opened)).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      result: { serverInfo: { name: 'interop-mcp-sdk' } },
    });
  });

  it('has the rate limiting of the router off (its default allows 50 token requests per 15 minutes)', async (ctx) => {
    if (on.unavailable) ctx.skip(on.unavailable);
    const statuses = new Set<number>();
    for (let i = 0; i < 60; i++) {
      const res = await fetch(new URL('/token', on.issuer), {
        method: 'POST',
        body: new URLSearchParams({ grant_type: 'authorization_code', client_id: 'nobody' }),
      });
      statuses.add(res.status);
      await res.body?.cancel();
    }
    expect([...statuses]).toEqual([400]);
  });
});
