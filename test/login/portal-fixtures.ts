/**
 * Pages modelled on a real portal, LemonLDAP::NG 2.16's (its bootstrap skin, as served by
 * interop/lemonldap-ng): the markup and scripts are its own, reduced, with the words its
 * translation script would fill in left empty as the portal serves them.
 * - `pc`: the login form, then the third-party consent page, where "Accept" and "Refuse" are two
 *   unnamed submit buttons of one form: a script (its confirm.js) sets the hidden `confirm` stamp
 *   negative when Refuse is clicked; the form as served (Accept, Enter) approves. The redirect
 *   after a refusal carries error=consent_required, as the portal's does. The sign-in sets the
 *   portal's session cookie (`lemonldap`), which the consent's answer must carry; a request with
 *   it goes straight to the consent page.
 * - `pe`: the portal's error page, HTTP 200: an empty role="alert" box of class
 *   "message message-negative alert" that a script fills in ("Error"), a "Go to portal" link and
 *   an icon-only "back to top" button.
 * - `pr`: the re-authentication interstitial (max_age on a session it takes as older): a
 *   "message-positive" box without a role, one "Upgrade session" submit button, a "Go to portal"
 *   link and the icon-only button; the button leads to the login form, then back with a code.
 * One node:http server on 127.0.0.1, port 0.
 */
import { randomBytes } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { USER } from './fixtures.ts';

export interface PortalFixtures {
  /** The client's redirect_uri: never fetched by a driver (hits are counted). */
  redirectUri: string;
  redirectHits: number;
  /** The authorization URL of a fixture: url('pc'), url('pe'), url('pr'). */
  url(fixture: 'pc' | 'pe' | 'pr', params?: Record<string, string>): string;
  close(): Promise<void>;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The portal's frame: title, a logo, the content, the icon-only "back to top" button, a footer. */
function portal(content: string, script = ''): string {
  return `<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="en" lang="en"><head>
<title trspan="authPortal">Authentication portal</title><meta charset="utf-8"></head><body>
<div id="wrap"><div id="header"><img src="/static/logo.png" class="img-fluid rounded mx-auto d-block" /></div>
${content}
</div>
<button type="button" class="btn btn-danger btn-floating btn-lg" id="btn-back-to-top">
<i class="fa fa-arrow-circle-up"></i></button>
<div id="footer"><p><span trspan="serviceProvidedBy">Service provided by</span>
<a href="https://lemonldap-ng.org" target="_blank" class="btn btn-secondary btn-sm">LemonLDAP::NG</a></p></div>
${script}</body></html>`;
}

function hidden(fields: Record<string, string>): string {
  return Object.entries(fields)
    .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}" />`)
    .join('');
}

/** The portal's login form: it posts to "#" (the same URL), with an anti-CSRF token. */
function loginPage(fields: Record<string, string>): string {
  return portal(`<main id="logincontent" class="container">
<!--
<div class="alert alert-danger">DEVELOPMENT PORTAL</div>
-->
<div id="errormsg"><div class="message message-warning alert" role="status"><span trmsg="9"></span></div></div>
<form id="lform" action="#" method="post" class="login" role="form">
${hidden({ ...fields, skin: 'bootstrap', token: randomBytes(6).toString('hex') })}
<div class="form-group"><input id="userfield" name="user" type="text" class="form-control" value=""
 trplaceholder="login" required aria-required="true" autofocus /></div>
<div class="form-group"><input id="passwordfield" name="password" type="password" class="form-control"
 trplaceholder="password" required aria-required="true" /></div>
<button type="submit" class="btn btn-success">
<span class="fa fa-sign-in"></span><span trspan="connect">Sign in</span></button>
</form></main>`);
}

/** The third-party consent page: Accept and Refuse submit the same unnamed form; a script tells them apart. */
function consentPage(fields: Record<string, string>, stamp: string): string {
  return portal(
    `<div id="logincontent" class="container">
<form id="form" action="#" method="post" class="confirm" role="form">
${hidden(fields)}<input type="hidden" id="confirm" name="confirm" value="${esc(stamp)}" />
<div class="card border-info"><div class="card-header text-white bg-info">
<h3 class="card-title"><span trspan="confirmation">Confirmation</span></h3></div>
<div class="card-body"><div class="oidc_consent_message"><h3 trspan="oidcConsent,app"></h3>
<ul><li><span trspan="yourIdentity">yourIdentity</span></li>
<li><span trspan="yourProfile">yourProfile</span></li></ul></div>
<div class="buttons">
<button type="submit" class="positive btn btn-success">
<span class="fa fa-check-circle"></span><span trspan="accept">Accept</span></button>
<button id="refuse" type="submit" class="negative btn btn-danger" val="-${esc(stamp)}">
<span class="fa fa-times-circle"></span><span trspan="refuse">Refuse</span></button>
</div></div></div>
<div id="logout">
<div class="buttons">
<a href="/?cancel=1" class="btn btn-primary" role="button">
<span trspan="cancel">Cancel</span></a></div></div>
</form></div>`,
    `<script>document.getElementById('refuse').addEventListener('click', function () {
  document.getElementById('confirm').setAttribute('value', this.getAttribute('val'));
});</script>`,
  );
}

/** The portal's error page: HTTP 200, an alert box a script fills in. */
function errorPage(): string {
  return portal(
    `<div id="errorcontent" class="container">
<div class="message message-negative alert" role="alert"><span trmsg="24"></span></div>
<div id="error"><div class="buttons"><a href="/?cancel=1&amp;skin=bootstrap" class="btn btn-primary" role="button">
<span class="fa fa-home"></span><span trspan="goToPortal">Go to portal</span></a></div></div></div>`,
    `<script>for (const s of document.querySelectorAll('[trmsg="24"]')) s.textContent = 'Error';</script>`,
  );
}

/** The re-authentication interstitial the portal shows for max_age on an older session. */
function renewPage(fields: Record<string, string>): string {
  return portal(`<div id="errorcontent" class="container">
<div class="message message-positive alert"><span trspan="askToRenew"></span></div>
<form id="upgrd" action="/pr/renew" method="post" class="password" role="form">
${hidden({ ...fields, confirm: randomBytes(8).toString('hex') })}
<div class="buttons"><button type="submit" class="btn btn-success"><span class="fa fa-sign-in"></span>
<span trspan="renewSession">Upgrade session</span></button>
<a href="/" class="btn btn-primary" role="button">
<span class="fa fa-home"></span><span trspan="goToPortal">Go to portal</span></a>
</div></form></div>`);
}

async function formBody(req: IncomingMessage): Promise<URLSearchParams> {
  let body = '';
  for await (const chunk of req) body += chunk;
  return new URLSearchParams(body);
}

export async function startPortalFixtures(): Promise<PortalFixtures> {
  let port = 0;
  const state = { hits: 0 };
  /** Consent stamps handed out, one use each. */
  const stamps = new Set<string>();
  /** Portal sessions (the `lemonldap` cookie). */
  const sessions = new Set<string>();
  const signedIn = (req: IncomingMessage) =>
    (req.headers.cookie ?? '').split(/;\s*/).some((c) => sessions.has(c.replace(/^lemonldap=/, '')));
  const consent = (res: ServerResponse, s: string, cookie?: string) => {
    // hex: a base64url stamp may itself start with "-", which the fixture reads as a refusal (1 run in 64)
    const stamp = randomBytes(12).toString('hex');
    stamps.add(stamp);
    const headers = { 'content-type': 'text/html', ...(cookie ? { 'set-cookie': cookie } : {}) };
    res.writeHead(200, headers).end(consentPage({ state: s }, stamp));
  };
  const redirectUri = () => `http://127.0.0.1:${port}/cb`;
  const html = (res: ServerResponse, body: string, status = 200) =>
    res.writeHead(status, { 'content-type': 'text/html' }).end(body);
  const back = (res: ServerResponse, params: Record<string, string>) =>
    res.writeHead(302, { location: `${redirectUri()}?${new URLSearchParams(params)}` }).end();
  const valid = (p: URLSearchParams) => p.get('user') === USER.username && p.get('password') === USER.password;
  const code = () => `code-${randomBytes(6).toString('hex')}`;

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
      const st = url.searchParams.get('state') ?? '';
      const route = `${req.method} ${url.pathname}`;
      if (url.pathname === '/cb') {
        state.hits++;
        return html(res, 'the client app');
      }
      switch (route) {
        case 'GET /pc/authorize':
          return signedIn(req) ? consent(res, st) : html(res, loginPage({ state: st }));
        case 'POST /pc/authorize': {
          const p = await formBody(req);
          const s = p.get('state') ?? '';
          const confirm = p.get('confirm');
          if (confirm !== null) {
            const stamp = confirm.replace(/^-/, '');
            if (!stamps.delete(stamp) || !signedIn(req)) return html(res, errorPage());
            return confirm.startsWith('-')
              ? back(res, { error: 'consent_required', error_description: 'consent not given', state: s })
              : back(res, { code: code(), state: s });
          }
          if (!valid(p)) return html(res, loginPage({ state: s }));
          const sid = randomBytes(12).toString('hex');
          sessions.add(sid);
          return consent(res, s, `lemonldap=${sid}; Path=/; HttpOnly; SameSite=Lax`);
        }
        case 'GET /pe/authorize':
          return html(res, errorPage());
        // A session older than max_age (the fixture takes one as given): ask to renew it.
        case 'GET /pr/authorize':
          return html(res, renewPage({ state: st }));
        case 'POST /pr/renew': {
          // From the interstitial: the login form (posting back here); from the login form: the code.
          const p = await formBody(req);
          if (valid(p)) return back(res, { code: code(), state: p.get('state') ?? '' });
          return html(res, loginPage({ state: p.get('state') ?? '' }));
        }
        default:
          return html(res, portal('<h1>Not found</h1>'), 404);
      }
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    });
  });
  port = await listenOnLoopback(server);
  return {
    redirectUri: redirectUri(),
    get redirectHits() {
      return state.hits;
    },
    url: (fixture, params = {}) => fixtureUrl(port, fixture, redirectUri(), params),
    close: () => closeServer(server),
  };
}

/** Listens on 127.0.0.1, a free port; the port. */
export async function listenOnLoopback(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** A fixture's authorization URL: /<fixture>/authorize with a code request of client "app" and `params`. */
export function fixtureUrl(port: number, fixture: string, redirectUri: string, params: Record<string, string>): string {
  const query = new URLSearchParams({ response_type: 'code', client_id: 'app', redirect_uri: redirectUri, ...params });
  return `http://127.0.0.1:${port}/${fixture}/authorize?${query}`;
}

/** Closes the server and every connection it holds. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
