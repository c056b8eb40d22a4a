/**
 * A protected resource for tests (node:http on 127.0.0.1, port 0): an MCP-like endpoint at /mcp that takes a JWT
 * access token whose aud names it, its RFC 9728 metadata at /.well-known/oauth-protected-resource/mcp, and knobs that
 * break it the ways the prm.* scenarios must notice. It checks the token's signature against the issuer's JWKS
 * ({issuer}/jwks, the reference's) and its aud; a test fixture, never a resource server.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, jwtVerify } from 'jose';

export interface StubResourceOptions {
  /** The metadata's resource: the URL (good), another one (mismatch), or no document at all (none: 404). */
  metadata?: 'good' | 'mismatch' | 'none';
  /**
   * The 401's WWW-Authenticate: Bearer with resource_metadata (full), Bearer alone (bare), none, or a
   * resource_metadata on an origin the config does not allow (elsewhere).
   */
  challenge?: 'full' | 'bare' | 'none' | 'elsewhere';
  /** Take a token whatever its aud. */
  audienceUnchecked?: boolean;
  /** Take a token from ?access_token= too. */
  queryToken?: boolean;
  /** Take a token whatever its signature (one the server never issued). */
  signatureUnchecked?: boolean;
}

export interface StubResource {
  url: string;
  metadataUrl: string;
  /** The authorization server the metadata names (set once it is known). */
  issuer: string;
  close(): Promise<void>;
}

function audienceOf(token: string): string[] {
  try {
    const payload: unknown = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'));
    if (typeof payload !== 'object' || payload === null || !('aud' in payload)) return [];
    return [payload.aud].flat().filter((a): a is string => typeof a === 'string');
  } catch {
    return [];
  }
}

export async function startStubResource(options: StubResourceOptions = {}): Promise<StubResource> {
  const stub: StubResource = { url: '', metadataUrl: '', issuer: '', close: async () => {} };
  let keys: ReturnType<typeof createRemoteJWKSet> | undefined;
  const signed = async (token: string): Promise<boolean> => {
    keys ??= createRemoteJWKSet(new URL(`${stub.issuer}/jwks`));
    try {
      await jwtVerify(token, keys);
      return true;
    } catch {
      return false;
    }
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', stub.url);
    if (req.method === 'GET' && url.pathname === '/.well-known/oauth-protected-resource/mcp') {
      if (options.metadata === 'none') {
        res.writeHead(404).end();
        return;
      }
      const resource = options.metadata === 'mismatch' ? `${stub.url}/other` : stub.url;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ resource, authorization_servers: [stub.issuer], bearer_methods_supported: ['header'] }));
      return;
    }
    if (url.pathname !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    req.resume();
    req.on('end', async () => {
      const header = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
      const token = header ?? (options.queryToken ? (url.searchParams.get('access_token') ?? undefined) : undefined);
      const ok =
        token !== undefined &&
        (options.signatureUnchecked || (await signed(token))) &&
        (options.audienceUnchecked || audienceOf(token).includes(stub.url));
      if (ok) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-06-18', capabilities: {} } }));
        return;
      }
      const challenge =
        options.challenge === 'none'
          ? {}
          : {
              'www-authenticate':
                options.challenge === 'bare'
                  ? `Bearer${token ? ' error="invalid_token"' : ''}`
                  : `Bearer${token ? ' error="invalid_token",' : ''} resource_metadata="${
                      options.challenge === 'elsewhere' ? 'https://metadata.invalid/prm' : stub.metadataUrl
                    }"`,
            };
      res.writeHead(401, challenge).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  stub.url = `http://127.0.0.1:${port}/mcp`;
  stub.metadataUrl = `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`;
  stub.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return stub;
}
