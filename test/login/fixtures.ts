/**
 * IdP pages modelled on real products, for walking with both login drivers: an identifier-first
 * login (username, then password on a second page), a login rendered entirely by script (no form;
 * a fetch, then a navigation), consent with per-scope checkboxes, a consent whose deny is a
 * script-driven button, a device page whose code input is rendered by script outside any form, an
 * empty-body 403, a login host on a sibling subdomain that sets a parent-domain cookie, an
 * interstitial "Continue" after sign-in (no consent: a remembered one), and two hostile pages
 * (50,000 buttons; an unclosed tag). One node:http server on 127.0.0.1, port 0; the sibling hosts
 * are idp.example.localhost and login.example.localhost on the same port.
 */
import { randomBytes } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export const USER = { username: 'alice@example.test', password: 'wonderland-1' } as const;

export interface LoginFixtures {
  port: number;
  /** The client's redirect_uri: never fetched by a driver (hits are counted). */
  redirectUri: string;
  redirectHits: number;
  /** Device codes and what the user decided. */
  devices: Map<string, 'pending' | 'approved' | 'denied'>;
  /** The authorization URL of a fixture, e.g. url('idf'); the sibling fixture on idp.example.localhost. */
  url(fixture: string, params?: Record<string, string>): string;
  newDevice(): string;
  close(): Promise<void>;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function page(title: string, body: string, head = ''): string {
  return (
    `<!doctype html><html><head><meta ` +
    `charset="utf-8"><title>${esc(title)}</title>${head}</head><body>${body}</body></html>`
  );
}

function loginForm(action: string, hidden: Record<string, string>): string {
  const fields = Object.entries(hidden)
    .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`)
    .join('');
  return page(
    'Sign in',
    `<h1>Sign in</h1><form method="post" action="${esc(action)}">${fields}
<label for="username">Username</label><input id="username" name="username" autocomplete="username">
<label for="password">Password</label><input id="password" name="password" type="password">
<button type="submit">Sign in</button></form>`,
  );
}

async function formBody(req: IncomingMessage): Promise<URLSearchParams> {
  let body = '';
  for await (const chunk of req) body += chunk;
  return new URLSearchParams(body);
}

function cookies(req: IncomingMessage): Record<string, string> {
  return Object.fromEntries(
    (req.headers.cookie ?? '')
      .split(/;\s*/)
      .filter(Boolean)
      .map((c) => [c.slice(0, c.indexOf('=')), c.slice(c.indexOf('=') + 1)]),
  );
}

export async function startLoginFixtures(): Promise<LoginFixtures> {
  const devices = new Map<string, 'pending' | 'approved' | 'denied'>();
  const sessions = new Set<string>();
  let port = 0;
  const state: { hits: number } = { hits: 0 };
  const redirectUri = () => `http://127.0.0.1:${port}/cb`;
  const back = (res: ServerResponse, params: Record<string, string>) => {
    res.writeHead(302, { location: `${redirectUri()}?${new URLSearchParams(params)}` }).end();
  };
  const html = (res: ServerResponse, body: string, status = 200, headers: Record<string, string | string[]> = {}) => {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers }).end(body);
  };
  const see = (res: ServerResponse, location: string, headers: Record<string, string | string[]> = {}) => {
    res.writeHead(303, { location, ...headers }).end();
  };
  const valid = (p: URLSearchParams) => p.get('username') === USER.username && p.get('password') === USER.password;
  const code = () => `code-${randomBytes(6).toString('hex')}`;

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`);
      const host = url.hostname;
      const q = url.searchParams;
      const st = q.get('state') ?? '';
      const route = `${req.method} ${url.pathname}`;
      if (url.pathname === '/cb') {
        state.hits++;
        return html(res, 'the client app');
      }

      // The login host on a sibling subdomain: its cookie is for the parent domain, read by the IdP host.
      if (host === 'idp.example.localhost' && route === 'GET /sib/authorize') {
        if (sessions.has(cookies(req).sso ?? '')) return back(res, { code: code(), state: st });
        res
          .writeHead(302, {
            location: `http://login.example.localhost:${port}/sib/login?${new URLSearchParams({ state: st })}`,
          })
          .end();
        return;
      }
      if (host === 'login.example.localhost' && route === 'GET /sib/login')
        return html(res, loginForm('/sib/login', { state: st }));
      if (host === 'login.example.localhost' && route === 'POST /sib/login') {
        const p = await formBody(req);
        if (!valid(p)) return html(res, loginForm('/sib/login', { state: p.get('state') ?? '' }), 401);
        const sso = randomBytes(8).toString('hex');
        sessions.add(sso);
        return see(
          res,
          `http://idp.example.localhost:${port}/sib/authorize?${new URLSearchParams({ state: p.get('state') ?? '' })}`,
          {
            'set-cookie': `sso=${sso}; Domain=example.localhost; Path=/; HttpOnly; SameSite=Lax`,
          },
        );
      }

      switch (route) {
        // response_mode=form_post (OAuth 2.0 Form Post Response Mode §2): after the login, a page whose script
        // submits a form of hidden fields to the redirect_uri (a button without scripts).
        case 'GET /fp/authorize':
          return html(res, loginForm('/fp/login', { state: st }));
        case 'POST /fp/login': {
          const p = await formBody(req);
          if (!valid(p)) return html(res, loginForm('/fp/login', { state: p.get('state') ?? '' }), 401);
          const fields = { code: code(), state: p.get('state') ?? '' };
          const hidden = Object.entries(fields)
            .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`)
            .join('');
          return html(
            res,
            page(
              'Submit this form',
              `<form method="post" action="${esc(redirectUri())}">${hidden}` +
                '<noscript><button type="submit">Continue</button></noscript></form>' +
                '<script>document.forms[0].submit()</script>',
            ),
          );
        }

        // Identifier-first: the username on one page, the password on the next.
        case 'GET /idf/authorize':
          return html(
            res,
            page(
              'Sign in',
              `<h1>Sign in</h1><form method="post" action="/idf/identify"><input type="hidden" name="state" ` +
                `value="${esc(st)}">
<label for="identifier">Email address or username</label><input id="identifier" name="identifier" type="email" ` +
                `autocomplete="username">
<button type="submit">Next</button></form><p><a href="/idf/help">Need help?</a></p>`,
            ),
          );
        case 'POST /idf/identify': {
          const p = await formBody(req);
          if (p.get('identifier') !== USER.username) return html(res, page('Sign in', '<h1>Unknown account</h1>'), 400);
          return see(res, `/idf/password?${new URLSearchParams({ state: p.get('state') ?? '' })}`, {
            'set-cookie': `idf_user=${USER.username}; Path=/idf; HttpOnly`,
          });
        }
        case 'GET /idf/password':
          if (cookies(req).idf_user !== USER.username) return html(res, page('Error', '<h1>Start again</h1>'), 400);
          return html(
            res,
            page(
              'Enter your password',
              `<h1>Enter your password</h1><p>Signed in as ${USER.username}</p>
<form method="post" action="/idf/password"><input type="hidden" name="state" value="${esc(st)}"><input ` +
                `type="hidden" name="username" value="${USER.username}" autocomplete="username">
<label>Password <input type="password" name="passwd" autocomplete="current-password"></label><button ` +
                `type="submit">Sign in</button>
<a href="/idf/authorize?state=${esc(st)}">Use another account</a></form>`,
            ),
          );
        case 'POST /idf/password': {
          const p = await formBody(req);
          if (cookies(req).idf_user !== USER.username || p.get('passwd') !== USER.password)
            return html(res, page('Enter your password', '<h1>Wrong password</h1>'), 401);
          return back(res, { code: code(), state: p.get('state') ?? '' });
        }

        // A login rendered entirely by script: no form in the HTML; the button posts JSON and navigates.
        case 'GET /spa/authorize':
          return html(
            res,
            page(
              'Example',
              `<div id="app">Loading…</div><script>
setTimeout(function () {
  var app = document.getElementById('app');
  app.innerHTML = '<h1>Welcome back</h1><div><input id="user" placeholder="Email or username"></div><div><input ` +
                `id="pass" type="password" placeholder="Password"></div><div role="alert" id="err"></div><button ` +
                `id="go">Log in</button>';
  document.getElementById('go').addEventListener('click', function () {
    fetch('/spa/session', { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ u: document.getElementById('user').value, p: document.getElementById('pass').value, ` +
                `state: ${JSON.stringify(st)} }) })
      .then(function (r) { return r.json(); })
      .then(function (j) { if (j.redirect) location.href = j.redirect; else ` +
                `document.getElementById('err').textContent = j.error; });
  });
}, 400);
</script>`,
            ),
          );
        case 'POST /spa/session': {
          let raw = '';
          for await (const chunk of req) raw += chunk;
          const j = JSON.parse(raw) as { u: string; p: string; state: string };
          res.writeHead(200, { 'content-type': 'application/json' });
          return res.end(
            JSON.stringify(
              j.u === USER.username && j.p === USER.password
                ? { redirect: `${redirectUri()}?${new URLSearchParams({ code: code(), state: j.state })}` }
                : { error: 'Wrong email or password' },
            ),
          );
        }

        // Consent with per-scope checkboxes: what is ticked is what is granted.
        case 'GET /psc/authorize':
          return html(res, loginForm('/psc/login', { state: st, scope: q.get('scope') ?? '' }));
        case 'POST /psc/login': {
          const p = await formBody(req);
          if (!valid(p))
            return html(
              res,
              loginForm('/psc/login', { state: p.get('state') ?? '', scope: p.get('scope') ?? '' }),
              401,
            );
          const scopes = (p.get('scope') ?? '').split(' ').filter((s) => s && s !== 'openid');
          const boxes = scopes
            .map((s) => `<li><label><input type="checkbox" name="scope" value="${esc(s)}"> ${esc(s)}</label></li>`)
            .join('');
          return html(
            res,
            page(
              'Authorize Example App',
              `<h1>Example App wants to access your account</h1><form method="post" action="/psc/consent">
<input type="hidden" name="state" value="${esc(p.get('state') ?? '')}"><p>Choose what it may see:</p><ul>${boxes}</ul>
<button type="submit" name="action" value="deny">Cancel</button> <button type="submit" name="action" ` +
                `value="allow">Allow access</button></form>`,
            ),
          );
        }
        case 'POST /psc/consent': {
          const p = await formBody(req);
          if (p.get('action') !== 'allow') return back(res, { error: 'access_denied', state: p.get('state') ?? '' });
          return back(res, {
            code: code(),
            state: p.get('state') ?? '',
            scope: ['openid', ...p.getAll('scope')].join(' '),
          });
        }

        // Consent whose deny is a script-driven button outside the form.
        case 'GET /sdd/authorize':
          return html(res, loginForm('/sdd/login', { state: st }));
        case 'POST /sdd/login': {
          const p = await formBody(req);
          if (!valid(p)) return html(res, loginForm('/sdd/login', { state: p.get('state') ?? '' }), 401);
          const s = esc(p.get('state') ?? '');
          return html(
            res,
            page(
              'Grant permission',
              `<h1>Example App would like permission to read your profile</h1>
<form id="grant" method="post" action="/sdd/consent"><input type="hidden" name="state" value="${s}"><button ` +
                `type="submit">Allow</button></form>
<button type="button" id="deny" data-state="${s}">Deny</button>
<script>document.getElementById('deny').addEventListener('click', function (e) { location.href = '/sdd/deny?state=' ` +
                `+ encodeURIComponent(e.target.dataset.state); });</script>`,
            ),
          );
        }
        case 'POST /sdd/consent': {
          const p = await formBody(req);
          return back(res, { code: code(), state: p.get('state') ?? '' });
        }
        case 'GET /sdd/deny':
          return back(res, { error: 'access_denied', state: st });

        // A device page without a form: the code input is rendered by script; the button posts JSON.
        case 'GET /dev/activate':
          return html(
            res,
            page(
              'Activate your device',
              `<div id="root"></div><script>
setTimeout(function () {
  document.getElementById('root').innerHTML = '<h1>Activate your device</h1><label for="uc">Enter the code shown on ` +
                `your TV</label> <input id="uc" autocomplete="off"> <button id="next">Continue</button><p ` +
                `id="msg"></p>';
  document.getElementById('uc').value = ${JSON.stringify(q.get('user_code') ?? '')};
  document.getElementById('next').addEventListener('click', function () {
    fetch('/dev/code', { method: 'POST', body: document.getElementById('uc').value }).then(function (r) { return ` +
                `r.json(); })
      .then(function (j) { if (j.next) location.href = j.next; else document.getElementById('msg').textContent = ` +
                `'That code is not valid'; });
  });
}, 300);
</script>`,
            ),
          );
        case 'POST /dev/code': {
          let raw = '';
          for await (const chunk of req) raw += chunk;
          res.writeHead(200, { 'content-type': 'application/json' });
          return res.end(
            JSON.stringify(
              devices.get(raw.trim()) === 'pending'
                ? { next: `/dev/login?${new URLSearchParams({ c: raw.trim() })}` }
                : { error: 'invalid' },
            ),
          );
        }
        case 'GET /dev/login':
          return html(res, loginForm('/dev/login', { c: q.get('c') ?? '' }));
        case 'POST /dev/login': {
          const p = await formBody(req);
          if (!valid(p)) return html(res, loginForm('/dev/login', { c: p.get('c') ?? '' }), 401);
          const c = esc(p.get('c') ?? '');
          return html(
            res,
            page(
              'Allow access',
              `<h1>Allow TV App to access your account?</h1><form method="post" action="/dev/confirm"><input ` +
                `type="hidden" name="c" value="${c}">
<button type="submit" name="decision" value="approve">Approve</button><button type="submit" name="decision" ` +
                `value="deny">Deny</button></form>`,
            ),
          );
        }
        case 'POST /dev/confirm': {
          const p = await formBody(req);
          const c = p.get('c') ?? '';
          if (devices.get(c) === 'pending') devices.set(c, p.get('decision') === 'approve' ? 'approved' : 'denied');
          return see(res, '/dev/done');
        }
        case 'GET /dev/done':
          return html(res, page('Done', '<h1>All done</h1><p>You may return to your device.</p>'));

        // An HTTP error without a body.
        case 'GET /e403/authorize':
          res.writeHead(403, { 'content-length': '0' }).end();
          return;

        // After sign-in, a plain HTTP 200 page that says an error occurred: no error class, no alert box, nothing to
        // act on (as an OAuth framework's pre-authorization error page): a refusal by page.
        case 'GET /plain/authorize':
          return html(res, loginForm('/plain/login', { state: st }));
        case 'POST /plain/login': {
          const p = await formBody(req);
          if (!valid(p)) return html(res, loginForm('/plain/login', { state: p.get('state') ?? '' }), 401);
          const text = '<h1>An error has occurred</h1><main><pre>The requested scope is invalid.</pre></main>';
          return html(res, page('An error has occurred', text));
        }

        // After sign-in, an interstitial with one "Continue" and no request for access: the IdP remembers the consent.
        case 'GET /rc/authorize':
          return html(res, loginForm('/rc/login', { state: st }));
        case 'POST /rc/login': {
          const p = await formBody(req);
          if (!valid(p)) return html(res, loginForm('/rc/login', { state: p.get('state') ?? '' }), 401);
          return html(
            res,
            page(
              'Welcome',
              `<h1>Welcome back, ${USER.username}</h1><p>Your last sign-in was yesterday.</p>
<form method="post" action="/rc/continue"><input type="hidden" name="state" ` +
                `value="${esc(p.get('state') ?? '')}"><button type="submit">Continue</button></form>`,
            ),
          );
        }
        case 'POST /rc/continue': {
          const p = await formBody(req);
          return back(res, { code: code(), state: p.get('state') ?? '' });
        }

        // Hostile pages: 50,000 buttons; an attribute that never closes.
        case 'GET /huge/authorize':
          return html(
            res,
            page(
              'Many buttons',
              `<form method="post" ` +
                `action="/huge/x">${'<button name="b" value="1">Button</button>'.repeat(50_000)}</form>`,
            ),
          );
        case 'GET /unclosed/authorize':
          return html(
            res,
            `<!doctype html><html><head><title>Unclosed</title></head><body><form method="post"><input name="a" ` +
              `value="${'x'.repeat(2_000_000)}`,
          );
        default:
          return html(res, page('Not found', '<h1>Not found</h1>'), 404);
      }
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  return {
    port,
    redirectUri: redirectUri(),
    get redirectHits() {
      return state.hits;
    },
    devices,
    url(fixture, params = {}) {
      const host = fixture === 'sib' ? `idp.example.localhost:${port}` : `127.0.0.1:${port}`;
      const path = fixture === 'dev' ? '/dev/activate' : `/${fixture}/authorize`;
      const query = new URLSearchParams(
        fixture === 'dev'
          ? params
          : { response_type: 'code', client_id: 'app', redirect_uri: redirectUri(), ...params },
      );
      return `http://${host}${path}${[...query].length ? `?${query}` : ''}`;
    },
    newDevice() {
      const userCode =
        `${randomBytes(2).toString('hex').toUpperCase()}-` + `${randomBytes(2).toString('hex').toUpperCase()}`;
      devices.set(userCode, 'pending');
      return userCode;
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
