/**
 * A small in-test IdP that offers only discovery and dynamic client registration (RFC 7591) with its management
 * (RFC 7592), on 127.0.0.1 (port 0), with knobs that make it refuse: enough for the harness's registration session,
 * not an authorization server.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RegistrarOptions {
  /** Refuse to register a client whose grant_types include this grant (400 invalid_client_metadata). */
  refuseGrant?: string;
  /** Answer every DELETE with this status (a client that cannot be deleted). */
  deleteStatus?: number;
  /** Require this initial access token (RFC 7591 §3). */
  initialAccessToken?: string;
  /** Leave registration_endpoint out of discovery. */
  noEndpoint?: boolean;
  /** Refuse a redirect URI with a fragment: HTTP 400 with this error code, or a text/plain body (`text`). */
  refuseFragment?: string;
  /** The registration response's scope: left out (`null`), or this value instead of the one asked for. */
  scopeAnswer?: string | null;
}

export interface Registrar {
  issuer: string;
  /** The registered clients the registrar holds now, by client_id. */
  clients: Map<string, { metadata: Record<string, unknown>; secret: string; token: string }>;
  /** Every request: method, path and Authorization. */
  requests: { method: string; path: string; authorization?: string }[];
  close(): Promise<void>;
}

export async function startRegistrar(options: RegistrarOptions = {}): Promise<Registrar> {
  const clients: Registrar['clients'] = new Map();
  const requests: Registrar['requests'] = [];
  let issuer = '';
  const json = (res: ServerResponse, status: number, body?: unknown) => {
    res.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' });
    res.end(body === undefined ? undefined : JSON.stringify(body));
  };
  const bodyOf = async (req: IncomingMessage): Promise<string> => {
    let text = '';
    for await (const chunk of req) text += chunk;
    return text;
  };
  const server = createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', issuer).pathname;
    requests.push({
      method: req.method ?? '',
      path,
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
    });
    if (path === '/.well-known/openid-configuration') {
      return json(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        ...(options.noEndpoint ? {} : { registration_endpoint: `${issuer}/register` }),
        scopes_supported: ['openid', 'profile', 'email', 'offline_access', 'api:read'],
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
      });
    }
    if (path === '/jwks') return json(res, 200, { keys: [] });
    if (path === '/register' && req.method === 'POST') {
      if (options.initialAccessToken && req.headers.authorization !== `Bearer ${options.initialAccessToken}`)
        return json(res, 401, { error: 'invalid_token' });
      const metadata = JSON.parse(await bodyOf(req)) as Record<string, unknown>;
      const grants = (metadata.grant_types as string[] | undefined) ?? [];
      const uris = (metadata.redirect_uris as string[] | undefined) ?? [];
      if (options.refuseFragment && uris.some((u) => u.includes('#'))) {
        if (options.refuseFragment !== 'text') return json(res, 400, { error: options.refuseFragment });
        res.writeHead(400, { 'content-type': 'text/plain' }).end('Error: a fragment');
        return;
      }
      if (options.refuseGrant && grants.includes(options.refuseGrant))
        return json(res, 400, {
          error: 'invalid_client_metadata',
          error_description: `grant_types ${options.refuseGrant} is not allowed for dynamic clients`,
        });
      const id = `dyn-${randomBytes(6).toString('hex')}`;
      const secret = `sec-${randomBytes(16).toString('hex')}`;
      const token = `rat-${randomBytes(16).toString('hex')}`;
      clients.set(id, { metadata, secret, token });
      const { scope, ...rest } = metadata;
      const answered =
        options.scopeAnswer === undefined
          ? { scope }
          : options.scopeAnswer === null
            ? {}
            : { scope: options.scopeAnswer };
      return json(res, 201, {
        ...rest,
        ...answered,
        client_id: id,
        client_secret: secret,
        client_secret_expires_at: 0,
        registration_access_token: token,
        registration_client_uri: `${issuer}/register/${id}`,
      });
    }
    const m = /^\/register\/([\w-]+)$/.exec(path);
    const client = m ? clients.get(m[1]!) : undefined;
    if (!m || !client || req.headers.authorization !== `Bearer ${client.token}`)
      return json(res, 401, { error: 'invalid_token' });
    if (req.method === 'DELETE') {
      if (options.deleteStatus) return json(res, options.deleteStatus, { error: 'server_error' });
      clients.delete(m[1]!);
      return json(res, 204);
    }
    return json(res, 200, { ...client.metadata, client_id: m[1] });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    clients,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
