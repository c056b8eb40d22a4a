/**
 * For the `serve --mcp` tests: a tiny loopback server of Client ID Metadata Documents (what each path answers, and
 * how often it was asked), a CIMD client for ReferenceClient's code flow, and the MCP endpoint's requests.
 */
import { createServer, type Server } from 'node:http';
import type { ClientConfig } from '../../reference/index.ts';
import type { ReferenceClient } from '../support/reference-client.ts';

export { MCP_OPTIONS } from '../matrix/opt-in.ts';

/** Where the CIMD clients of the tests are sent back to (never loaded: the flow stops at the redirect). */
export const CIMD_REDIRECT = 'http://127.0.0.1:9/callback';

export interface Served {
  status?: number;
  headers?: Record<string, string>;
  /** The body; a function gets the document's own URL. */
  body: string | ((url: string) => string);
}

export class DocumentServer {
  readonly #routes = new Map<string, Served>();
  readonly hits = new Map<string, number>();
  #server: Server | undefined;
  base = '';

  async start(): Promise<void> {
    const server = createServer((req, res) => {
      const path = req.url ?? '/';
      this.hits.set(path, (this.hits.get(path) ?? 0) + 1);
      const route = this.#routes.get(path);
      if (!route) {
        res.writeHead(404).end();
        return;
      }
      const body = typeof route.body === 'function' ? route.body(`${this.base}${path}`) : route.body;
      res.writeHead(route.status ?? 200, { 'content-type': 'application/json', ...route.headers }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (typeof address !== 'object' || address === null) throw new Error('no port');
    this.base = `http://127.0.0.1:${address.port}`;
    this.#server = server;
  }

  close(): Promise<void> {
    const server = this.#server;
    if (!server) return Promise.resolve();
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  }

  /** Serves `served` at a fresh path; returns the document's URL (its client_id). */
  serve(served: Served): string {
    const path = `/clients/${Math.random().toString(36).slice(2)}.json`;
    this.#routes.set(path, served);
    return `${this.base}${path}`;
  }

  /** A valid document (client_id its URL, CIMD_REDIRECT), with `extra` members and response headers. */
  document(extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): string {
    return this.serve({
      headers,
      body: (url) => JSON.stringify({ client_id: url, client_name: 'Test MCP client', ...documentOf(extra) }),
    });
  }

  hitsOf(url: string): number {
    return this.hits.get(new URL(url).pathname) ?? 0;
  }
}

function documentOf(extra: Record<string, unknown>): Record<string, unknown> {
  return { redirect_uris: [CIMD_REDIRECT], token_endpoint_auth_method: 'none', ...extra };
}

/** The client a test drives through ReferenceClient's flows: the document's URL, its redirect URI, public. */
export function cimdClient(url: string, redirectUri = CIMD_REDIRECT): ClientConfig {
  return {
    clientId: url,
    redirectUris: [redirectUri],
    allowedScope: 'openid offline_access',
    grantTypes: ['authorization_code', 'refresh_token'],
    firstParty: false,
    name: 'cimd',
  };
}

/** A JSON-RPC request to {issuer}/mcp, with the token in the Authorization header (or none). */
export async function mcpCall(
  idp: ReferenceClient,
  token: string | undefined,
  method = 'initialize',
  init: { query?: string; get?: boolean } = {},
): Promise<{ status: number; challenge: string | null; headers: Headers; body: unknown }> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
  };
  const rpc = { jsonrpc: '2.0', id: 1, method, params: { protocolVersion: '2025-11-25', capabilities: {} } };
  const response = await fetch(`${idp.issuer}/mcp${init.query ?? ''}`, {
    method: init.get ? 'GET' : 'POST',
    headers,
    ...(init.get ? {} : { body: JSON.stringify(rpc) }),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: kept as text.
  }
  return {
    status: response.status,
    challenge: response.headers.get('www-authenticate'),
    headers: response.headers,
    body,
  };
}
