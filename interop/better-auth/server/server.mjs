/**
 * better-auth 1.7.5 with @better-auth/oauth-provider 1.7.5 as an OAuth 2.0 / OpenID provider, run by
 * interop/better-auth/index.ts as a child process: `node server.mjs` with this folder's own node_modules (npm ci of
 * ./package-lock.json), on 127.0.0.1 at INTEROP_PORT, its SQLite database (better-sqlite3) a new file in
 * INTEROP_WORK_DIR each start. What it made at start (the clients with their secrets) goes to
 * INTEROP_WORK_DIR/clients.json (mode 0600) for the module; no secret is printed.
 *
 * The set-up, and why (a careful deployer's choices; interop/better-auth/index.ts and docs/interop.md say the same):
 * - betterAuth() on node:http (toNodeHandler) under its default basePath /api/auth, so the issuer is
 *   http://127.0.0.1:PORT/api/auth; a random secret per start (BETTER_AUTH_SECRET's role); e-mail and password
 *   sign-in. The schema is created by better-auth's own migrations (getMigrations) in the fresh database.
 * - jwt() with RS256 keys (the plugin's default is EdDSA, which fewer relying parties verify): ID tokens, and JWT
 *   access tokens when a resource is asked for, are signed with it; its JWKS at /api/auth/jwks. The jwt plugin's own
 *   /token endpoint (a session's JWT, not OAuth) is disabled (disabledPaths), as the oauth-provider docs do.
 * - oauthProvider() with its defaults kept: PKCE required for every client, refresh tokens rotated strictly (reuse
 *   interval 0), opaque access tokens unless a resource is requested, no dynamic client registration; scopes openid
 *   profile email offline_access and api:read (the machine client's); one resource, INTEROP_RESOURCE, for
 *   resource-bound JWT access tokens. loginPage /login and consentPage /consent are this server's own pages:
 *   better-auth is headless. oauthDeviceAuthorization() adds the device flow (RFC 8628), its page /device.
 * - The pages are plain HTML forms. Sign-in posts to better-auth's /api/auth/sign-in/email with the signed
 *   authorization query (oauth_query, what its oauthProviderClient adds in a browser): for a navigation better-auth
 *   answers with the authorization redirect itself. Consent and device approval post to this server, which calls
 *   better-auth's server API (auth.api.oauth2Consent, deviceApprove/deviceDeny) with the user's cookies — what its
 *   client library does from a script — and redirects (303) where better-auth says.
 * - rateLimit off (the reason at the option).
 * - Users: an operator (who manages the clients: clientPrivileges lets only that account create them) and the test
 *   user, both through auth.api.signUpEmail. The clients are created through the admin API
 *   (auth.api.adminCreateOAuthClient) with the operator's session. http redirect URIs on 127.0.0.1 are accepted only
 *   for application_type "native" (RFC 8252 loopback redirects), so every client with one is native.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { oauthDeviceAuthorization, oauthProvider, oauthProviderAuthServerMetadata } from '@better-auth/oauth-provider';
import { betterAuth } from 'better-auth';
import { getMigrations } from 'better-auth/db/migration';
import { fromNodeHeaders, toNodeHandler } from 'better-auth/node';
import { jwt } from 'better-auth/plugins';
import Database from 'better-sqlite3';

const port = Number(process.env.INTEROP_PORT);
const workDir = process.env.INTEROP_WORK_DIR ?? '';
const spec = JSON.parse(process.env.INTEROP_SETUP ?? '{}');
if (!port || !workDir || !spec.user || !spec.clients) {
  console.error('server.mjs: INTEROP_PORT, INTEROP_WORK_DIR and INTEROP_SETUP are needed');
  process.exit(2);
}
const origin = `http://127.0.0.1:${port}`;
const operator = { email: 'operator@example.com', password: randomBytes(24).toString('base64url'), name: 'Operator' };

const auth = betterAuth({
  baseURL: origin,
  secret: randomBytes(32).toString('base64url'),
  database: new Database(path.join(workDir, 'better-auth.sqlite')),
  emailAndPassword: { enabled: true },
  disabledPaths: ['/token'],
  telemetry: { enabled: false },
  // The harness is one client on one address that runs hundreds of flows in a minute; better-auth's limiter (on in
  // production: e.g. 3 sign-ins per 10 s, and one shared bucket per path when, as here, no client address header is
  // set) would answer 429 and the verdicts would be about the limiter. A deployment keeps it, behind a proxy that
  // names the client address.
  rateLimit: { enabled: false },
  plugins: [
    jwt({ jwks: { keyPairConfig: { alg: 'RS256', modulusLength: 2048 } } }),
    oauthProvider({
      loginPage: '/login',
      consentPage: '/consent',
      scopes: ['openid', 'profile', 'email', 'offline_access', 'api:read'],
      resources: [spec.resource],
      clientPrivileges: async ({ user }) => user?.email === operator.email,
    }),
    oauthDeviceAuthorization({ verificationUri: '/device' }),
  ],
});

const { runMigrations } = await getMigrations(auth.options);
await runMigrations();

/** Signs a user up and in; the session cookie header of the sign-in. */
async function signUp(user) {
  await auth.api.signUpEmail({ body: user });
  const res = await auth.api.signInEmail({ body: { email: user.email, password: user.password }, asResponse: true });
  return res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
}
const operatorCookie = await signUp(operator);
await signUp({ email: spec.user.email, password: spec.user.password, name: 'Alice Example' });

/** Every client of INTEROP_SETUP, created by the operator through the admin API; their ids and secrets. */
const made = {};
for (const [role, c] of Object.entries(spec.clients)) {
  const created = await auth.api.adminCreateOAuthClient({
    headers: new Headers({ cookie: operatorCookie }),
    body: c,
  });
  made[role] = {
    clientId: created.client_id,
    ...(created.client_secret ? { clientSecret: created.client_secret } : {}),
  };
  // RFC 8707: a client may ask for the resource only when linked to it (enforcePerClientResources, the default).
  if (spec.resourceClients?.includes(role)) {
    await auth.api.adminLinkClientResource({
      headers: new Headers({ cookie: operatorCookie }),
      params: { identifier: spec.resource, client_id: created.client_id },
    });
  }
}
writeFileSync(path.join(workDir, 'clients.json'), JSON.stringify(made), { mode: 0o600 });

const html = (s) =>
  String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
const page = (title, body) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${html(title)}</title></head>` +
  `<body><h1>${html(title)}</h1>${body}</body></html>`;
/** Headers of every page of ours: no framing (RFC 9700 §4.16), no referrer, no caching. */
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'x-frame-options': 'DENY',
  'content-security-policy': "frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/** The sign-in page: e-mail and password (and `extra` hidden fields' HTML) posted to `action`. */
const signInPage = (action, extra = '') =>
  page(
    'Sign in',
    `<form method="post" action="${html(action)}">` +
      `<label>E-mail <input type="email" name="email" autocomplete="username" required></label>` +
      `<label>Password <input type="password" name="password" autocomplete="current-password" required></label>` +
      `${extra}<button type="submit">Sign in</button></form>`,
  );

/** A page that asks the user to decide: `asks` in words, a form posting `hidden` and the chosen button to `action`. */
const decisionPage = (title, asks, action, hidden, buttons) =>
  page(
    title,
    `<p>${html(asks)}</p><form method="post" action="${action}">` +
      `<input type="hidden" name="${hidden[0]}" value="${html(hidden[1])}">` +
      buttons
        .map(([name, value, label]) => `<button type="submit" name="${name}" value="${value}">${label}</button>`)
        .join('') +
      '</form>',
  );

/** The signed part of a redirected page's query: what oauthProviderClient sends as oauth_query (its own rule). */
function signedQuery(search) {
  const params = new URLSearchParams(search);
  const names = new Set(params.getAll('ba_param'));
  if (!params.has('sig') || !names.size) return '';
  const out = new URLSearchParams();
  for (const [k, v] of params) if (k === 'sig' || k === 'ba_param' || names.has(k)) out.append(k, v);
  return out.toString();
}

async function formBody(req) {
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > 64 * 1024) throw new Error('body too large');
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/**
 * POSTs `body` as JSON to better-auth's endpoint `endpoint` (under /api/auth) as the request's user (its cookies,
 * origin and navigation headers): the fetch better-auth's client library makes from the page. Its Response.
 */
function asUser(req, endpoint, body) {
  const headers = fromNodeHeaders(req.headers);
  headers.set('content-type', 'application/json');
  headers.delete('content-length');
  return auth.handler(
    new Request(`${origin}/api/auth${endpoint}`, { method: 'POST', headers, body: JSON.stringify(body) }),
  );
}

/** Sends better-auth's answer on as a 303 to where it points (redirect_uri or url), its cookies with it. */
async function forward(res, answer) {
  const body = await answer
    .clone()
    .json()
    .catch(() => ({}));
  const to = answer.headers.get('location') ?? body.redirect_uri ?? body.url;
  const cookies = answer.headers.getSetCookie();
  if (!to) {
    res.writeHead(Math.max(answer.status, 400), { ...PAGE_HEADERS, 'set-cookie': cookies });
    res.end(page('Error', `<p>${html(body.error_description ?? body.message ?? body.error ?? 'failed')}</p>`));
    return;
  }
  res.writeHead(303, { location: to, 'set-cookie': cookies, 'cache-control': 'no-store' });
  res.end();
}

const metadata = oauthProviderAuthServerMetadata(auth);
const handler = toNodeHandler(auth);

async function pages(req, res, url) {
  if (url.pathname === '/.well-known/oauth-authorization-server/api/auth') {
    // RFC 8414 §3: the metadata of issuer http://HOST/api/auth lives at this path (the docs' route).
    const answer = await metadata(new Request(new URL(url.pathname + url.search, origin)));
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    res.end(Buffer.from(await answer.arrayBuffer()));
    return true;
  }
  if (url.pathname === '/login' && req.method === 'GET') {
    const q = signedQuery(url.search);
    res.writeHead(200, PAGE_HEADERS);
    res.end(signInPage('/api/auth/sign-in/email', `<input type="hidden" name="oauth_query" value="${html(q)}">`));
    return true;
  }
  if (url.pathname === '/consent' && req.method === 'GET') {
    const q = signedQuery(url.search);
    const scope = url.searchParams.get('scope') ?? '';
    const client = url.searchParams.get('client_id') ?? '';
    res.writeHead(200, PAGE_HEADERS);
    res.end(
      decisionPage(
        'Allow access?',
        `${client} asks for: ${scope}`,
        '/consent',
        ['oauth_query', q],
        [
          ['accept', 'true', 'Allow'],
          ['accept', 'false', 'Deny'],
        ],
      ),
    );
    return true;
  }
  if (url.pathname === '/consent' && req.method === 'POST') {
    const form = await formBody(req);
    const body = { accept: form.get('accept') === 'true', oauth_query: form.get('oauth_query') ?? '' };
    await forward(res, await asUser(req, '/oauth2/consent', body));
    return true;
  }
  if (url.pathname === '/device' && req.method === 'GET') {
    // RFC 8628 §3.3: the user enters the code (or comes with verification_uri_complete), signs in, and decides.
    const code = (url.searchParams.get('user_code') ?? '').trim();
    const codeForm = (error) =>
      page(
        'Connect a device',
        (error ? `<p>${html(error)}</p>` : '') +
          `<form method="post" action="/device"><label>Code <input name="user_code" required></label>` +
          `<button type="submit">Continue</button></form>`,
      );
    if (!code) {
      res.writeHead(200, PAGE_HEADERS);
      res.end(codeForm());
      return true;
    }
    const session = await auth.api.getSession({ headers: fromNodeHeaders(req.headers) });
    if (!session) {
      const back = `/device?user_code=${encodeURIComponent(code)}`;
      res.writeHead(303, { location: `/device/login?return=${encodeURIComponent(back)}`, 'cache-control': 'no-store' });
      res.end();
      return true;
    }
    // better-auth's GET /device binds the pending code to the signed-in user (what its client calls on this page).
    const headers = fromNodeHeaders(req.headers);
    headers.delete('content-length');
    const found = await auth.handler(
      new Request(`${origin}/api/auth/device?user_code=${encodeURIComponent(code)}`, { headers }),
    );
    const info = await found.json().catch(() => ({}));
    if (found.status !== 200 || info.status !== 'pending') {
      res.writeHead(found.status === 200 ? 400 : found.status, PAGE_HEADERS);
      res.end(codeForm(info.status ? `This code is ${info.status}.` : 'Unknown or expired code.'));
      return true;
    }
    res.writeHead(200, PAGE_HEADERS);
    res.end(
      decisionPage(
        'Allow this device?',
        `${info.client_id} asks for: ${info.scope}`,
        '/device',
        ['user_code', code],
        [
          ['decision', 'approve', 'Approve'],
          ['decision', 'deny', 'Deny'],
        ],
      ),
    );
    return true;
  }
  if (url.pathname === '/device' && req.method === 'POST') {
    const form = await formBody(req);
    const userCode = (form.get('user_code') ?? '').trim();
    const decision = form.get('decision');
    if (decision !== 'approve' && decision !== 'deny') {
      res.writeHead(303, {
        location: `/device?user_code=${encodeURIComponent(userCode)}`,
        'cache-control': 'no-store',
      });
      res.end();
      return true;
    }
    const answer = await asUser(req, decision === 'deny' ? '/device/deny' : '/device/approve', { userCode });
    const ok = answer.status === 200;
    const done = decision === 'deny' ? 'Access denied. You may close this page.' : 'Device connected.';
    res.writeHead(ok ? 200 : answer.status, PAGE_HEADERS);
    res.end(page(ok ? 'Done' : 'Error', `<p>${ok ? done : html(await answer.text())}</p>`));
    return true;
  }
  if (url.pathname === '/device/login') {
    const back = url.searchParams.get('return') ?? '/device';
    if (req.method === 'POST') {
      const form = await formBody(req);
      const answer = await auth.api.signInEmail({
        headers: fromNodeHeaders(req.headers),
        body: { email: form.get('email') ?? '', password: form.get('password') ?? '' },
        asResponse: true,
      });
      const target = back.startsWith('/device?') ? back : '/device';
      if (answer.status === 200) {
        res.writeHead(303, { location: target, 'set-cookie': answer.headers.getSetCookie() });
        res.end();
        return true;
      }
    }
    res.writeHead(200, PAGE_HEADERS);
    res.end(signInPage(`/device/login?return=${encodeURIComponent(back)}`));
    return true;
  }
  return false;
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', origin);
  if (url.pathname.startsWith('/api/auth/')) return void handler(req, res);
  pages(req, res, url)
    .then((done) => {
      if (done) return;
      res.writeHead(404, PAGE_HEADERS);
      res.end(page('Not found', ''));
    })
    .catch((error) => {
      console.error(error);
      if (!res.headersSent) res.writeHead(500, PAGE_HEADERS);
      res.end(page('Error', '<p>server error</p>'));
    });
});
server.listen(port, '127.0.0.1', () => {
  console.log(`better-auth 1.7.5 at ${origin}/api/auth (${Object.keys(made).length} clients)`);
});
