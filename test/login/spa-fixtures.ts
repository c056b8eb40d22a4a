/**
 * Pages modelled on a single-page-app sign-in (Glewlwyd 2.7's, as its users see it) and pages that defeat a
 * click, for both login drivers. One node:http server on 127.0.0.1, port 0.
 * - `gs`: the page Glewlwyd's login app shows a user who is already signed in, as rendered: a navbar with a language
 *   select and a user menu ("alice"), "You are signed in as alice", a "Continue" button (the one choice), and
 *   "Logout" (styled btn-danger) and "Change user" buttons that work by script. Continue leads to the redirect with a
 *   code.
 * - `gl`: the sign-in as a single-page app: a shell whose script asks /gl/api/session who is signed in and renders
 *   the login form (username, password, a "Sign in" button that posts JSON to /gl/api/auth by fetch, then reloads) or,
 *   once signed in (a cookie), the `gs` view, whose Continue goes to /gl/continue and back with a code. Nothing is
 *   posted as a form: the sign-in is an XHR.
 * - `st`: a login form whose "Sign in" button is covered by a transparent overlay: found and visible, never clickable;
 *   `sd`: one whose button a script disables as soon as anything is typed, and never enables again (a validation
 *   that never passes).
 * - `sn`: a login form whose "Sign in" button navigates the page elsewhere as it is pressed (on pointerdown), racing
 *   the click's own form submission.
 * - `sb`: a login form whose POST is answered by a dropped connection (the form driver's network failure), and `sx` one
 *   whose form action is not a URL (its parse failure).
 */
import { randomBytes } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import { USER } from './fixtures.ts';
import { closeServer, fixtureUrl, listenOnLoopback } from './portal-fixtures.ts';

export type SpaFixture = 'gs' | 'gl' | 'st' | 'sd' | 'sn' | 'sb' | 'sx';

export interface SpaFixtures {
  redirectUri: string;
  /** The authorization URL of a fixture. */
  url(fixture: SpaFixture, params?: Record<string, string>): string;
  close(): Promise<void>;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The signed-in view of Glewlwyd's login app, as rendered; `continueTo` is where Continue goes (with the state). */
export function signedInPage(state: string, continueTo: string): string {
  return `<!DOCTYPE html><html><head><title>Glewlwyd</title></head><body>
<nav class="navbar navbar-expand-lg navbar-light bg-light"><a class="navbar-brand" href="#">Glewlwyd</a>
<select class="form-select" aria-label="Language"><option>en</option><option>fr</option></select>
<button type="button" class="btn btn-secondary dropdown-toggle" aria-label="User menu" onclick="void 0">alice</button>
</nav>
<div class="container"><h3>Log in to Single-page app</h3>
<div class="alert alert-info">You are signed in as alice</div>
<form action="${esc(continueTo)}" method="get"><input type="hidden" name="state" value="${esc(state)}">
<button type="submit" class="btn btn-primary">Continue</button></form>
<button type="button" class="btn btn-danger" onclick="void 0">Logout</button>
<button type="button" class="btn btn-secondary" onclick="void 0">Change user</button>
</div></body></html>`;
}

/** The single-page app's shell: the view is rendered by its script from /gl/api/session. */
function spaShell(state: string): string {
  return `<!DOCTYPE html><html><head><title>Glewlwyd</title></head><body><div id="root"></div>
<script>
const state = ${JSON.stringify(state)};
fetch('/gl/api/session').then((r) => r.json()).then((s) => {
  const root = document.getElementById('root');
  if (s.user) {
    root.innerHTML = '<div class="container"><div class="alert alert-info">You are signed in as ' + s.user +
      '</div><button type="button" class="btn btn-primary" id="continue">Continue</button>' +
      '<button type="button" class="btn btn-danger" id="logout">Logout</button></div>';
    document.getElementById('continue').onclick = () => {
      location.href = '/gl/continue?state=' + encodeURIComponent(state);
    };
    return;
  }
  root.innerHTML = '<div class="container"><input id="username" type="text" placeholder="Username">' +
    '<input id="password" type="password" placeholder="Password">' +
    '<button type="button" class="btn btn-primary" id="signin">Sign in</button></div>';
  document.getElementById('signin').onclick = () => {
    fetch('/gl/api/auth', { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: document.getElementById('username').value,
        password: document.getElementById('password').value }) })
      .then((r) => { if (r.ok) location.reload(); });
  };
});
</script></body></html>`;
}

/** A plain login form; `extra` goes after it (an overlay, a script), `action` is where it posts. */
function loginForm(state: string, action: string, extra = ''): string {
  return `<!DOCTYPE html><html><head><title>Sign in</title></head><body>
<form method="post" action="${esc(action)}"><input type="hidden" name="state" value="${esc(state)}">
<input name="username" type="text"><input name="password" type="password">
<button type="submit" id="go">Sign in</button></form>${extra}</body></html>`;
}

const OVERLAY = '<div style="position:fixed;inset:0;z-index:10;background:transparent"></div>';
const onPress = (js: string) => `<script>document.getElementById('go').addEventListener('pointerdown', () => { ${js} });
</script>`;

async function body(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text;
}

export async function startSpaFixtures(): Promise<SpaFixtures> {
  let port = 0;
  const sessions = new Set<string>();
  const redirectUri = () => `http://127.0.0.1:${port}/cb`;
  const html = (res: ServerResponse, text: string, status = 200) =>
    res.writeHead(status, { 'content-type': 'text/html' }).end(text);
  const back = (res: ServerResponse, state: string) =>
    res
      .writeHead(302, {
        location: `${redirectUri()}?${new URLSearchParams({ code: `code-${randomBytes(6).toString('hex')}`, state })}`,
      })
      .end();
  const signedIn = (req: IncomingMessage) =>
    (req.headers.cookie ?? '').split(/;\s*/).some((c) => sessions.has(c.replace(/^gl_session=/, '')));

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
      const state = url.searchParams.get('state') ?? '';
      const route = `${req.method} ${url.pathname}`;
      switch (route) {
        case 'GET /cb':
          return html(res, 'the client app');
        case 'GET /gs/authorize':
          return html(res, signedInPage(state, '/gs/continue'));
        case 'GET /gs/continue':
        case 'GET /gl/continue':
          return back(res, state);
        case 'GET /gl/authorize':
          return html(res, spaShell(state));
        case 'GET /gl/api/session':
          // The app renders only once this answers (its other requests take that long on the real one): the first
          // reading of the page finds the shell empty.
          await new Promise((resolve) => setTimeout(resolve, 2_000));
          return res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify(signedIn(req) ? { user: USER.username } : {}));
        case 'POST /gl/api/auth': {
          const { username, password } = JSON.parse(await body(req)) as Record<string, string>;
          if (username !== USER.username || password !== USER.password) return res.writeHead(401).end();
          const id = randomBytes(12).toString('hex');
          sessions.add(id);
          return res.writeHead(200, { 'set-cookie': `gl_session=${id}; Path=/; HttpOnly` }).end('{}');
        }
        case 'GET /st/authorize':
          return html(res, loginForm(state, '/st/login', OVERLAY));
        case 'GET /sd/authorize':
          return html(
            res,
            loginForm(
              state,
              '/st/login',
              `<script>for (const i of document.querySelectorAll('input')) i.addEventListener('input', () => {
  document.getElementById('go').disabled = true;
});</script>`,
            ),
          );
        case 'GET /sn/authorize':
          return html(res, loginForm(state, '/sn/login', onPress("location.href = '/sn/away';")));
        case 'GET /sn/away':
          return html(res, '<!DOCTYPE html><title>Elsewhere</title><p>Somewhere else</p>');
        case 'GET /sb/authorize':
          return html(res, loginForm(state, '/sb/login'));
        case 'POST /sb/login':
          await body(req);
          return req.socket.destroy();
        case 'GET /sx/authorize':
          return html(res, loginForm(state, 'http://[::1'));
        case 'POST /st/login':
        case 'POST /sn/login':
          return back(res, new URLSearchParams(await body(req)).get('state') ?? '');
        default:
          return html(res, '<h1>Not found</h1>', 404);
      }
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    });
  });
  port = await listenOnLoopback(server);
  return {
    redirectUri: redirectUri(),
    url: (fixture, params = {}) => fixtureUrl(port, fixture, redirectUri(), params),
    close: () => closeServer(server),
  };
}
