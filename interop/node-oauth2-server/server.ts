/**
 * A minimal authorization server on @node-oauth/oauth2-server 5.x, wired as its documentation shows
 * ("Getting Started": wrap the HTTP request and response in OAuth2Server.Request and .Response, call
 * oauth.authorize() and oauth.token(), and send back what the library left in the response), with the
 * in-memory model of ./model.ts, a plain HTML sign-in page and a consent page (Allow / Deny posting
 * `allowed`, which the library's authorize handler reads). Errors are answered the way the library's Express
 * wrapper (@node-oauth/express-oauth-server) does: the library's redirect when it set one, else the error's
 * status with { error, error_description }. The library's own choices are kept (its defaults: code 5 min,
 * access token 1 h, refresh 14 days, refresh tokens rotated, PKCE plain refused), as is its behaviour: this
 * server is here to be measured, not corrected.
 *
 * RFC 8414 metadata at /.well-known/oauth-authorization-server, written by this wrapper (the library
 * publishes none): what this server serves.
 */
import { randomBytes } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import querystring from 'node:querystring';
import OAuth2Server from '@node-oauth/oauth2-server';
import { portOf } from '../support.ts';
import { type MemoryClient, type MemoryUser, memoryModel } from './model.ts';

const { Request, Response, OAuthError } = OAuth2Server;

/** express.urlencoded/express.json's default limit. */
const BODY_LIMIT = 100 * 1024;

export interface Options {
  host: string;
  port: number;
  clients: MemoryClient[];
  users: MemoryUser[];
  scopes: string[];
}

interface Session {
  user?: MemoryUser;
  csrf: string;
}

const html = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function page(title: string, body: string): string {
  const head = `<meta charset="utf-8"><title>${html(title)}</title>`;
  return `<!doctype html><html lang="en"><head>${head}</head><body>${body}</body></html>`;
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    // A request without setEncoding yields Buffers.
    if (!Buffer.isBuffer(chunk)) throw new Error('the request body is not read as bytes');
    size += chunk.length;
    if (size > BODY_LIMIT) throw Object.assign(new Error('request entity too large'), { status: 413 });
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded') return { ...querystring.parse(text) };
  if (type === 'application/json' && text) {
    try {
      const parsed: unknown = JSON.parse(text);
      return typeof parsed === 'object' && parsed !== null ? { ...parsed } : {};
    } catch {
      throw Object.assign(new Error('invalid JSON'), { status: 400 });
    }
  }
  return {};
}

export async function startServer(
  options: Options,
): Promise<{ server: Server; issuer: string; stop(): Promise<void> }> {
  const { model, users } = memoryModel(options.clients, options.users);
  const oauth = new OAuth2Server({ model });
  const sessions = new Map<string, Session>();
  let issuer = '';

  function session(req: IncomingMessage, res: ServerResponse): Session {
    const sid = /(?:^|;\s*)sid=([A-Za-z0-9_-]+)/.exec(req.headers.cookie ?? '')?.[1];
    const found = sid && sessions.get(sid);
    if (found) return found;
    const id = randomBytes(24).toString('base64url');
    const fresh = { csrf: randomBytes(24).toString('base64url') };
    sessions.set(id, fresh);
    res.setHeader('Set-Cookie', `sid=${id}; Path=/; HttpOnly; SameSite=Lax`);
    return fresh;
  }

  function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    if (typeof body === 'string') {
      res.setHeader('Content-Type', 'text/html; charset=utf-8');
      res.writeHead(status).end(body);
    } else if (body === undefined) {
      res.writeHead(status).end();
    } else {
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.writeHead(status).end(JSON.stringify(body));
    }
  }

  /** What the library left in its Response, sent (the Express wrapper's res.set(headers).status(status).send(body)). */
  function sendLibrary(res: ServerResponse, response: OAuth2Server.Response) {
    const body = response.body && Object.keys(response.body).length ? response.body : undefined;
    send(res, response.status ?? 200, body, response.headers as Record<string, string>);
  }

  /** The Express wrapper's handleError: the library's headers, the error's status and { error, error_description }. */
  function sendError(res: ServerResponse, response: OAuth2Server.Response, e: unknown) {
    if (response.status === 302 && response.get('location')) return sendLibrary(res, response);
    if (!(e instanceof OAuthError)) return send(res, 500, { error: 'server_error' });
    const headers = response.headers as Record<string, string>;
    if (e.name === 'unauthorized_request') return send(res, e.code, undefined, headers);
    send(res, e.code, { error: e.name, error_description: e.message }, headers);
  }

  function loginPage(returnTo: string, failed: boolean) {
    return page(
      'Sign in',
      `<h1>Sign in</h1>${failed ? '<p role="alert">Wrong username or password.</p>' : ''}` +
        `<form method="post" action="/login"><input type="hidden" name="return" value="${html(returnTo)}">` +
        `<label>Username <input name="username" autocomplete="username"></label>` +
        `<label>Password <input name="password" type="password" autocomplete="current-password"></label>` +
        `<button type="submit">Sign in</button></form>`,
    );
  }

  function consentPage(query: string, s: Session, clientId: string, scope: string) {
    return page(
      'Authorize',
      `<h1>Authorize ${html(clientId)}</h1><p>It asks for: ${html(scope || '(its default scopes)')}</p>` +
        `<form method="post" action="/authorize?${html(query)}"><input type="hidden" name="csrf" value="${s.csrf}">` +
        `<button type="submit" name="allowed" value="true">Allow</button>` +
        `<button type="submit" name="allowed" value="false">Deny</button></form>`,
    );
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', issuer);
    const query = { ...querystring.parse(url.search.slice(1)) } as Record<string, string>;
    const method = req.method ?? 'GET';
    // The wrapper's own pages, as a careful deployer serves them (RFC 9700 §4.16 framing, §4.2.4 Referer).
    const headers = { 'X-Frame-Options': 'DENY', 'Referrer-Policy': 'no-referrer', 'Cache-Control': 'no-store' };
    if (url.pathname === '/.well-known/oauth-authorization-server' && method === 'GET') {
      return send(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
        code_challenge_methods_supported: ['S256'],
        scopes_supported: options.scopes,
      });
    }
    if (url.pathname === '/login' && method === 'POST') {
      const s = session(req, res);
      const body = await readBody(req);
      const returnTo = typeof body.return === 'string' && body.return.startsWith('/authorize?') ? body.return : '/';
      const user = users.find((u) => u.username === body.username && u.password === body.password);
      if (!user) return send(res, 200, loginPage(returnTo, true), headers);
      s.user = user;
      // 303: the next request is a GET (RFC 9700 §4.12).
      return send(res, 303, undefined, { Location: returnTo });
    }
    if (url.pathname === '/authorize' && (method === 'GET' || method === 'POST')) {
      const s = session(req, res);
      const body = method === 'POST' ? await readBody(req) : {};
      // The request's parameters, from the query or (a POST) the form: kept through sign-in and consent.
      const params = url.search.slice(1) || querystring.stringify(body as querystring.ParsedUrlQueryInput);
      if (!s.user) return send(res, 200, loginPage(`/authorize?${params}`, false), headers);
      // The consent page's answer (with its CSRF token) goes to the library; any other request shows the page.
      if (!(method === 'POST' && body.csrf === s.csrf && (body.allowed === 'true' || body.allowed === 'false'))) {
        const clientId = String(query.client_id ?? body.client_id ?? '');
        const scope = String(query.scope ?? body.scope ?? '');
        return send(res, 200, consentPage(params, s, clientId, scope), headers);
      }
      const user = s.user;
      const request = new Request({ method, query, headers: req.headers as Record<string, string>, body });
      const response = new Response({ headers: {} });
      try {
        await oauth.authorize(request, response, { authenticateHandler: { handle: () => user } });
        return sendLibrary(res, response);
      } catch (e) {
        return sendError(res, response, e);
      }
    }
    if (url.pathname === '/token' && method === 'POST') {
      const body = await readBody(req);
      const request = new Request({ method, query, headers: req.headers as Record<string, string>, body });
      const response = new Response({ headers: {} });
      try {
        await oauth.token(request, response);
        return sendLibrary(res, response);
      } catch (e) {
        return sendError(res, response, e);
      }
    }
    send(res, 404, { error: 'not_found' });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: { status?: number }) => {
      if (!res.headersSent)
        send(res, error.status ?? 500, { error: error.status ? 'invalid_request' : 'server_error' });
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const port = portOf(server);
  issuer = `http://${options.host}:${port}`;
  return {
    server,
    issuer,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
