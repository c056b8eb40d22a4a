/**
 * A small in-test identity provider on node:http (127.0.0.1, port 0), with knobs that break it in
 * the ways the first scenarios must notice. Not the reference server: just enough OAuth/OIDC for
 * the engine's own tests.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash, randomBytes } from 'node:crypto';
import * as jose from 'jose';
import type { TargetConfigInput } from '../../harness/config/load.ts';

export interface StubOptions {
  issuerMismatch?: boolean;
  pkceIgnored?: boolean;
  /** The token endpoint never answers. */
  hangToken?: boolean;
  /** Discovery answers 404. */
  noDiscovery?: boolean;
  /** Leave client_credentials out of grant_types_supported. */
  noClientCredentials?: boolean;
  /** ID tokens carry this aud instead of the client_id. */
  wrongAud?: string;
  /** Render the login page with these field names. */
  fields?: { username: string; password: string };
  /**
   * Leave these fields out of the discovery document (as django-oauth-toolkit 1.7 leaves out grant_types_supported).
   */
  discoveryOmit?: string[];
  /** Extra discovery fields (e.g. scopes_supported). */
  discoveryExtra?: Record<string, unknown>;
  /**
   * The discovery URL answers 301: `trailing-slash` to the same path with a slash (where the
   * document then is, as django-oauth-toolkit 1.7 does), or any absolute Location.
   */
  discoveryRedirect?: 'trailing-slash' | string;
  /** Authorization requests without a nonce are refused (error=invalid_request at the redirect URI). */
  requireNonce?: boolean;
  /** Every authorization request is refused with this error at the redirect URI, whatever it asks. */
  refuseAuthorize?: string;
  /** A second confidential client (clients.confidential2 in the config), with its own code and refresh flow. */
  secondClient?: boolean;
  /** Codes and refresh tokens are redeemed for whichever client presents them (not bound to their client). */
  grantsNotBoundToClient?: boolean;
  /** Every authorization_code or refresh_token request by the second client is refused with this error. */
  refuseSecondClient?: string;
  /** The error for a code or refresh token presented by a client it was not issued to (default invalid_grant). */
  crossClientError?: string;
  /**
   * The user is taken as signed in already (a remembered sign-in, or one a script did): an authorization request is
   * answered at once by a redirect with a code, with no page and no form POST.
   */
  signedIn?: boolean;
  /** Token responses carry no refresh_token (issuing one is the server's choice, RFC 6749 §1.5). */
  noRefreshToken?: boolean;
  /** Scopes it does not know: an authorization request asking for one is refused with invalid_scope. */
  unknownScopes?: string[];
  /** After this many requests the stub stops answering: its listener closes and every connection drops. */
  dieAfter?: number;
}

export const STUB = {
  web: { id: 'web-app', secret: 'stub-web-secret-8c1f', redirect: 'https://web.example.test/callback' },
  web2: { id: 'web-app-2', secret: 'stub-web2-secret-5e07', redirect: 'https://web2.example.test/callback' },
  machine: { id: 'machine', secret: 'stub-machine-secret-3d9a' },
  user: { username: 'alice', password: 'stub-alice-password-77' },
};

export interface StubIdp {
  issuer: string;
  config: TargetConfigInput;
  /** Every token and code the stub issued (for redaction tests). */
  issued: string[];
  requests: { method: string; url: string }[];
  close(): Promise<void>;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

export async function startStubIdp(options: StubOptions = {}): Promise<StubIdp> {
  const { privateKey, publicKey } = await jose.generateKeyPair('RS256');
  const jwk = { ...(await jose.exportJWK(publicKey)), kid: 'stub-1', alg: 'RS256', use: 'sig' };
  const pending = new Map<string, Record<string, string>>();
  const codes = new Map<string, { params: Record<string, string>; used: boolean }>();
  /** Refresh token → the client it was issued to. */
  const refreshTokens = new Map<string, string>();
  const webClients = options.secondClient ? [STUB.web, STUB.web2] : [STUB.web];
  const issued: string[] = [];
  const requests: StubIdp['requests'] = [];
  const fields = options.fields ?? { username: 'username', password: 'password' };
  let issuer = '';
  const mint = (n = 24) => {
    const v = randomBytes(n).toString('base64url');
    issued.push(v);
    return v;
  };

  const html = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) => {
    res
      .writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers })
      .end(`<!doctype html><html><head><title>Stub IdP</title></head><body>${body}</body></html>`);
  };
  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res
      .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers })
      .end(JSON.stringify(body));
  };
  const readBody = async (req: IncomingMessage): Promise<Record<string, string>> => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString();
    if (/json/.test(req.headers['content-type'] ?? '')) return JSON.parse(text || '{}') as Record<string, string>;
    return Object.fromEntries(new URLSearchParams(text));
  };

  const server = createServer((req, res) => {
    if (options.dieAfter !== undefined && requests.length >= options.dieAfter) {
      server.close();
      server.closeAllConnections();
      return;
    }
    void handle(req, res).catch((error: unknown) =>
      json(res, 500, { error: 'server_error', error_description: String(error) }),
    );
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', issuer);
    requests.push({ method: req.method ?? 'GET', url: url.href });
    const discoveryPath = '/.well-known/openid-configuration';
    if (url.pathname === discoveryPath && options.discoveryRedirect) {
      const location = options.discoveryRedirect === 'trailing-slash' ? `${discoveryPath}/` : options.discoveryRedirect;
      res.writeHead(301, { location }).end();
      return;
    }
    if (
      url.pathname === discoveryPath ||
      (url.pathname === `${discoveryPath}/` && options.discoveryRedirect === 'trailing-slash')
    ) {
      if (options.noDiscovery) return html(res, 404, '<h1>Not found</h1>');
      const doc: Record<string, unknown> = {
        issuer: options.issuerMismatch ? `${issuer}/other` : issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        grant_types_supported: [
          'authorization_code',
          'refresh_token',
          ...(options.noClientCredentials ? [] : ['client_credentials']),
        ],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        ...options.discoveryExtra,
      };
      for (const field of options.discoveryOmit ?? []) delete doc[field];
      return json(res, 200, doc);
    }
    if (url.pathname === '/boom') return json(res, 500, { error: 'server_error' });
    if (url.pathname === '/jwks') return json(res, 200, { keys: [jwk] });
    if (url.pathname === '/authorize') {
      const p = Object.fromEntries(url.searchParams);
      if (!webClients.some((c) => c.id === p.client_id && c.redirect === p.redirect_uri)) {
        return html(res, 400, '<h1>Invalid request</h1><p>Unknown client or redirect_uri.</p>');
      }
      const unknown = String(p.scope ?? '')
        .split(' ')
        .some((s) => options.unknownScopes?.includes(s));
      const refusal =
        options.refuseAuthorize ??
        (options.requireNonce && !p.nonce ? 'invalid_request' : unknown ? 'invalid_scope' : undefined);
      if (refusal) {
        const target = new URL(String(p.redirect_uri));
        target.searchParams.set('error', refusal);
        if (p.state) target.searchParams.set('state', p.state);
        res.writeHead(302, { location: target.href }).end();
        return;
      }
      if (options.signedIn) {
        const code = mint();
        codes.set(code, { params: p, used: false });
        const target = new URL(String(p.redirect_uri));
        target.searchParams.set('code', code);
        if (p.state) target.searchParams.set('state', p.state);
        res.writeHead(302, { location: target.href }).end();
        return;
      }
      const id = mint(8);
      pending.set(id, p);
      return html(
        res,
        200,
        `<form method="post" action="/login"><input type="hidden" name="req" value="${id}">
        <label>User <input name='${fields.username}' type=text></label><input type="password" name="${fields.password}">
        <button type="submit">Sign in</button></form>`,
      );
    }
    if (url.pathname === '/login' && req.method === 'POST') {
      const body = await readBody(req);
      if (
        body[fields.username] !== STUB.user.username ||
        body[fields.password] !== STUB.user.password ||
        !pending.has(body.req ?? '')
      ) {
        return html(
          res,
          200,
          `<p>Wrong credentials</p><form method="post" action="/login"><input type="hidden" name="req" ` +
            `value="${esc(body.req ?? '')}"><input type="password" name="${fields.password}"><button>Sign ` +
            `in</button></form>`,
        );
      }
      const sid = mint(16);
      return html(
        res,
        200,
        `<h1>Allow Example Web App?</h1><form method="post" action="/consent">
        <input type="hidden" name="req" value="${esc(body.req ?? '')}">
        <button type="submit" name="decision" value="deny">Deny</button>
        <button type="submit" name="decision" value="allow">Allow &amp; continue</button></form>`,
        { 'set-cookie': `sid=${sid}; Path=/; HttpOnly` },
      );
    }
    if (url.pathname === '/consent' && req.method === 'POST') {
      const body = await readBody(req);
      const p = pending.get(body.req ?? '');
      if (!p || !/sid=/.test(req.headers.cookie ?? '')) return html(res, 400, '<h1>Session lost</h1>');
      const target = new URL(p.redirect_uri!);
      if (body.decision !== 'allow') target.searchParams.set('error', 'access_denied');
      else {
        const code = mint();
        codes.set(code, { params: p, used: false });
        target.searchParams.set('code', code);
      }
      if (p.state) target.searchParams.set('state', p.state);
      res.writeHead(302, { location: target.href }).end();
      return;
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      if (options.hangToken) return; // never answers
      const body = await readBody(req);
      let clientId = body.client_id;
      let secret = body.client_secret;
      const auth = req.headers.authorization;
      if (auth?.startsWith('Basic ')) {
        const [id = '', s = ''] = Buffer.from(auth.slice(6), 'base64')
          .toString()
          .split(':')
          .map((x) => decodeURIComponent(x.replace(/\+/g, ' ')));
        clientId = id;
        secret = s;
      }
      const client = [...webClients, STUB.machine].find((c) => c.id === clientId);
      if (!client || client.secret !== secret)
        return json(res, 401, { error: 'invalid_client' }, { 'www-authenticate': 'Basic realm="stub"' });
      if (body.grant_type === 'client_credentials' && client === STUB.machine) {
        return json(res, 200, { access_token: mint(), token_type: 'Bearer', expires_in: 3600, scope: body.scope });
      }
      const webClient = client !== STUB.machine;
      const grant = body.grant_type;
      if (webClient && options.refuseSecondClient && client === STUB.web2 && grant !== 'client_credentials')
        return json(res, 400, { error: options.refuseSecondClient });
      if (grant === 'refresh_token' && webClient) {
        const owner = refreshTokens.get(body.refresh_token ?? '');
        if (!owner) return json(res, 400, { error: 'invalid_grant' });
        if (owner !== client.id && !options.grantsNotBoundToClient)
          return json(res, 400, { error: options.crossClientError ?? 'invalid_grant' });
        refreshTokens.delete(body.refresh_token ?? '');
        const next = mint();
        refreshTokens.set(next, client.id);
        return json(res, 200, { access_token: mint(), token_type: 'Bearer', expires_in: 3600, refresh_token: next });
      }
      if (grant === 'authorization_code' && webClient) {
        const entry = codes.get(body.code ?? '');
        if (entry && entry.params.client_id !== client.id && !options.grantsNotBoundToClient)
          return json(res, 400, { error: options.crossClientError ?? 'invalid_grant' });
        if (!entry || entry.used || entry.params.redirect_uri !== body.redirect_uri)
          return json(res, 400, { error: 'invalid_grant' });
        const challenge = entry.params.code_challenge;
        if (challenge && !options.pkceIgnored) {
          const computed = createHash('sha256')
            .update(body.code_verifier ?? '')
            .digest('base64url');
          if (computed !== challenge)
            return json(res, 400, { error: 'invalid_grant', error_description: 'PKCE verification failed' });
        }
        entry.used = true;
        const accessToken = mint();
        const now = Math.floor(Date.now() / 1000);
        const idToken = await new jose.SignJWT({
          sub: 'user-1',
          ...(entry.params.nonce ? { nonce: entry.params.nonce } : {}),
          at_hash: createHash('sha256').update(accessToken).digest().subarray(0, 16).toString('base64url'),
        })
          .setProtectedHeader({ alg: 'RS256', kid: 'stub-1', typ: 'JWT' })
          .setIssuer(issuer)
          .setAudience(options.wrongAud ?? client.id)
          .setIssuedAt(now)
          .setExpirationTime(now + 300)
          .sign(privateKey);
        issued.push(idToken);
        const refreshToken = mint();
        refreshTokens.set(refreshToken, client.id);
        return json(res, 200, {
          access_token: accessToken,
          token_type: 'bearer',
          expires_in: 3600,
          id_token: idToken,
          ...(options.noRefreshToken ? {} : { refresh_token: refreshToken }),
        });
      }
      return json(res, 400, { error: 'unsupported_grant_type' });
    }
    html(res, 404, '<h1>Not found</h1>');
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    issued,
    requests,
    config: {
      issuer,
      clients: {
        confidential: {
          clientId: STUB.web.id,
          clientSecret: STUB.web.secret,
          redirectUri: STUB.web.redirect,
          scope: 'openid profile',
        },
        machine: { clientId: STUB.machine.id, clientSecret: STUB.machine.secret, scope: 'api:read' },
        ...(options.secondClient
          ? {
              confidential2: {
                clientId: STUB.web2.id,
                clientSecret: STUB.web2.secret,
                redirectUri: STUB.web2.redirect,
                scope: 'openid profile',
              },
            }
          : {}),
      },
      user: { ...STUB.user },
      login: { driver: 'form', usernameField: fields.username, passwordField: fields.password },
      timeouts: { requestMs: 2000, scenarioMs: 5000 },
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
