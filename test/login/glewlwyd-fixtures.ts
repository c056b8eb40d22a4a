/**
 * Pages modelled on Glewlwyd 2.7's login app (its webapp-src/src/Login: App.js, PasswordForm.js, GrantScope.js,
 * Buttons.js, with their English strings), as a browser shows them: a single-page app whose HTML is an empty shell
 * and whose every view is rendered by its script from the IdP's JSON API. One node:http server on 127.0.0.1, port 0.
 *
 * - `/gw/auth` (the authorization endpoint) sends the browser to `/gw/login.html?callback_url=<itself>&client_id&scope`
 *   until the user is signed in, has granted the scopes and pressed Continue (`&g_continue`); then to the redirect
 *   URI with a code.
 * - The login app asks `/gw/api/profile_list` who is signed in (401: nobody), and renders:
 *   - nobody: "Please enter your login and password", inputs `username` ("Your username") and `password`, a submit
 *     button "OK" whose click the script takes over (preventDefault) to POST JSON to `/gw/api/auth/` by fetch, then
 *     asks again (the session cookie is set by that XHR);
 *   - signed in, scopes not granted: "Hello alice", "The client Single-page app requires acces to the following
 *     scopes" (sic), a checkbox per scope (openid ticked, the others not), a "Grant access" button (type=button) that
 *     PUTs the ticked scopes to `/gw/api/auth/grant/<client_id>` by fetch; in the footer "Continue" disabled;
 *   - signed in and granted: "Hello alice" and the footer: "Continue" (type=button: the script sets location to the
 *     callback URL with `&g_continue`), "Logout" with its menu toggle, and the menu buttons "Manage" and "Change
 *     user" (GLEWLWYD_MENUS, as 2.7.5 renders them).
 *   The navbar has two icon-only buttons (the menu toggler, the language menu).
 * - Each API answer takes a little while (`delayMs`), as the real one's chain of requests does: a click re-renders the
 *   page only after a few requests, never by a navigation.
 */
import { randomBytes } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import { USER } from './fixtures.ts';
import { closeServer, listenOnLoopback } from './portal-fixtures.ts';

export interface GlewlwydFixtures {
  redirectUri: string;
  /** The authorization URL (scope openid profile, client "spa"). */
  url(params?: Record<string, string>): string;
  /** Requests to the redirect URI (a driver must never load it). */
  redirectHits: number;
  /** Grants given, by user: the scopes. */
  grants: Map<string, string[]>;
  close(): Promise<void>;
}

/**
 * The footer's menu buttons as Glewlwyd 2.7.5 renders them for a signed-in user (read from the Debian package's login
 * app in Chromium): "Manage" (profile page, grant) and "Change user", Bootstrap dropdown toggles that open a menu
 * (aria-haspopup) whose items stay hidden until opened.
 */
export const GLEWLWYD_MENUS =
  '<div class="btn-group" role="group"><button class="btn btn-secondary dropdown-toggle" type="button" ' +
  'id="selectGrant" data-toggle="dropdown" aria-haspopup="true" aria-expanded="false">Manage</button>' +
  '<div class="dropdown-menu" aria-labelledby="selectGrant" style="display:none">' +
  '<a class="dropdown-item" href="#">Profile page</a><a class="dropdown-item" href="#">Grant</a></div>' +
  '<button class="btn btn-secondary dropdown-toggle" type="button" id="selectNewUser" data-toggle="dropdown" ' +
  'aria-haspopup="true" aria-expanded="false">Change user</button></div>';

/** The login app: a shell its script renders, as Glewlwyd's login.html is. */
const LOGIN_APP = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Glewlwyd</title></head>
<body><div id="root"></div><script>
const params = new URLSearchParams(location.search);
const api = (path, method = 'GET', body) => fetch('/gw/api' + path, { method, credentials: 'same-origin',
  headers: body ? { 'content-type': 'application/json' } : {}, body: body && JSON.stringify(body) });
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
let view = { user: null, client: null, scope: [] };
function frame(body, footer) {
  document.getElementById('root').innerHTML = '<div class="glwd-container">' +
    '<div class="card" id="userCard" role="dialog">' +
    '<div class="card-header"><nav class="navbar navbar-expand-lg navbar-light"><a class="navbar-brand" href="#">' +
    'Glewlwyd</a><button class="navbar-toggler" type="button" data-toggle="collapse" ' +
    'data-target="#navbarSupportedContent" aria-controls="navbarSupportedContent" aria-expanded="false" ' +
    'aria-label="Toggle navigation">' +
    '<span class="navbar-toggler-icon"></span></button><div class="btn-group"><button class="btn btn-secondary ' +
    'dropdown-toggle" type="button" id="dropdownLang" data-toggle="dropdown" aria-haspopup="true" ' +
    'aria-expanded="false"><i class="fas fa-globe-africa"></i></button></div></nav></div>' +
    '<div class="card-body">' + body + '</div><div class="card-footer">' + footer + '</div></div></div>';
}
function render() {
  if (!view.user) {
    frame('<form action="#" id="passwordForm"><h4>Please enter your login and password</h4>' +
      '<label for="username">Login</label>' +
      '<input type="text" name="username" id="username" placeholder="Your username">' +
      '<label for="password">Password</label><input type="password" name="password" id="password" ' +
      'placeholder="Your password"><button type="submit" name="loginbut" id="loginbut" class="btn btn-primary" ' +
      'title="Click here to validate your login and password">OK</button></form>', '');
    document.getElementById('passwordForm').addEventListener('submit', (e) => {
      e.preventDefault();
      api('/auth/', 'POST', { username: document.getElementById('username').value,
        password: document.getElementById('password').value }).then((r) => { if (r.ok) init(); });
    });
    return;
  }
  const granted = view.scope.every((s) => s.granted);
  let body = '<h4>Hello ' + esc(view.user) + '</h4><hr>';
  if (!granted) {
    body += '<h4>The client ' + esc(view.client) + ' requires acces to the following scopes</h4>' +
      '<ul class="list-group">' +
      view.scope.map((s) => '<li class="list-group-item"><input type="checkbox" id="grant-' + esc(s.name) + '"' +
        (s.granted ? ' checked' : '') + '><label for="grant-' + esc(s.name) + '">' + esc(s.name) + '</label></li>')
        .join('') +
      '</ul><button type="button" class="btn btn-primary" id="grantBut">Grant access</button>';
  }
  frame(body, '<div class="btn-group" role="group"><button type="button" class="btn btn-success" id="continue"' +
    (granted ? '' : ' disabled') + ' title="Continue to client application">Continue</button>' +
    '<button type="button" class="btn btn-danger" id="logout">Logout</button>' +
    '<button class="btn btn-danger dropdown-toggle" type="button" id="logoutDropdown" data-toggle="dropdown" ' +
    'aria-haspopup="true" aria-expanded="false"></button></div>' + ${JSON.stringify(GLEWLWYD_MENUS)});
  document.getElementById('continue').addEventListener('click', () => {
    location.href = params.get('callback_url') + '&g_continue';
  });
  const grant = document.getElementById('grantBut');
  if (grant) grant.addEventListener('click', () => {
    const scope = view.scope.filter((s) => document.getElementById('grant-' + s.name).checked).map((s) => s.name);
    api('/auth/grant/' + encodeURIComponent(params.get('client_id')), 'PUT', { scope: scope.join(' ') })
      .then(() => init());
  });
}
function init() {
  api('/profile_list').then((r) => (r.ok ? r.json() : [])).then((users) => {
    view.user = users.length ? users[0].username : null;
    if (!view.user) return render();
    return api('/auth/grant/' + encodeURIComponent(params.get('client_id')) + '/' +
      encodeURIComponent(params.get('scope'))).then((r) => r.json()).then((g) => {
      view.client = g.client.name;
      view.scope = g.scope;
      render();
    });
  });
}
init();
</script></body></html>`;

async function json(req: IncomingMessage): Promise<Record<string, string>> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return JSON.parse(text || '{}') as Record<string, string>;
}

export async function startGlewlwydFixtures(delayMs = 150): Promise<GlewlwydFixtures> {
  let port = 0;
  let hits = 0;
  const sessions = new Map<string, string>();
  const grants = new Map<string, string[]>();
  const origin = () => `http://127.0.0.1:${port}`;
  const redirectUri = () => `${origin()}/cb`;
  const userOf = (req: IncomingMessage) => {
    for (const c of (req.headers.cookie ?? '').split(/;\s*/))
      if (c.startsWith('GLEWLWYD2_SESSION_ID=')) return sessions.get(c.slice('GLEWLWYD2_SESSION_ID='.length));
    return undefined;
  };
  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', origin());
      const user = userOf(req);
      if (url.pathname.startsWith('/gw/api/')) await new Promise((resolve) => setTimeout(resolve, delayMs));
      const route = `${req.method} ${url.pathname}`;
      if (url.pathname === '/cb') {
        hits++;
        return res.writeHead(200, { 'content-type': 'text/html' }).end('the client app');
      }
      if (route === 'GET /gw/auth') {
        const scope = (url.searchParams.get('scope') ?? 'openid').split(' ');
        const granted = user !== undefined && scope.every((s) => s === 'openid' || grants.get(user)?.includes(s));
        if (granted && url.searchParams.has('g_continue')) {
          const back = new URL(url.searchParams.get('redirect_uri') ?? redirectUri());
          back.searchParams.set('code', `code-${randomBytes(6).toString('hex')}`);
          back.searchParams.set('state', url.searchParams.get('state') ?? '');
          return res.writeHead(302, { location: back.href }).end();
        }
        const login = new URL('/gw/login.html', origin());
        login.searchParams.set('callback_url', url.href.replace(/&g_continue$/, ''));
        login.searchParams.set('client_id', url.searchParams.get('client_id') ?? '');
        login.searchParams.set('scope', scope.join(' '));
        return res.writeHead(302, { location: login.href }).end();
      }
      if (route === 'GET /gw/login.html') return res.writeHead(200, { 'content-type': 'text/html' }).end(LOGIN_APP);
      if (route === 'GET /gw/api/profile_list')
        return user ? send(res, 200, [{ username: user, name: user }]) : send(res, 401, { error: 'unauthorized' });
      if (route === 'POST /gw/api/auth/') {
        const body = await json(req);
        if (body.username !== USER.username || body.password !== USER.password) return send(res, 401, {});
        const id = randomBytes(12).toString('hex');
        sessions.set(id, USER.username);
        return send(res, 200, {}, { 'set-cookie': `GLEWLWYD2_SESSION_ID=${id}; Path=/; HttpOnly; SameSite=Lax` });
      }
      const grant = /^\/gw\/api\/auth\/grant\/([^/]+)(?:\/(.*))?$/.exec(url.pathname);
      if (grant && req.method === 'GET' && user) {
        const scope = decodeURIComponent(grant[2] ?? '').split(' ');
        const given = grants.get(user) ?? [];
        return send(res, 200, {
          client: { client_id: decodeURIComponent(grant[1]!), name: 'Single-page app' },
          scope: scope.map((name) => ({ name, granted: name === 'openid' || given.includes(name) })),
        });
      }
      if (grant && req.method === 'PUT' && user) {
        grants.set(user, (await json(req)).scope?.split(' ') ?? []);
        return send(res, 200, {});
      }
      return send(res, 404, { error: 'not found' });
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    });
  });
  port = await listenOnLoopback(server);
  return {
    redirectUri: redirectUri(),
    url: (params = {}) => {
      const u = new URL('/gw/auth', origin());
      const all = { response_type: 'code', client_id: 'spa', redirect_uri: redirectUri(), scope: 'openid profile' };
      for (const [k, v] of Object.entries({ ...all, ...params })) u.searchParams.set(k, v);
      return u.href;
    },
    get redirectHits() {
      return hits;
    },
    grants,
    close: () => closeServer(server),
  };
}
