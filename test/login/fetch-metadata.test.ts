/**
 * The form driver against an IdP that defends itself as recommended: it tells navigations from
 * scripts by Fetch Metadata (a request to its authorization endpoint that is not a document
 * navigation gets `200 {"redirect":true,"url":…}`, as a single-page app's XHR would) and refuses a
 * form POST whose Origin is missing, "null" or foreign (403 `{"code":"MISSING_OR_NULL_ORIGIN"}`).
 * The driver signs in, consents and denies there with no error; the transcript shows every header
 * the server received, exactly (Host, Connection and Content-Length included), and the 403's body
 * unmasked.
 */
import { randomBytes } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../harness/http/client.ts';
import { Recorder } from '../../harness/http/recorder.ts';
import { FormLoginDriver } from '../../harness/login/form.ts';
import { Redactor } from '../../harness/redact/redact.ts';
import type { HttpEvidence } from '../../harness/model/results.ts';

const USER = { username: 'alice', password: 'wonderland-1' };

interface Fixture {
  origin: string;
  redirectUri: string;
  /** The headers of every request the server received, as received (names lower-cased, in order). */
  received: { method: string; url: string; headers: [string, string][] }[];
  close(): Promise<void>;
}

async function startFixture(): Promise<Fixture> {
  const received: Fixture['received'] = [];
  const sessions = new Set<string>();
  let origin = '';
  const redirectUri = () => `${origin.replace('127.0.0.1', 'localhost')}/cb`;
  const send = (res: ServerResponse, status: number, type: string, body: string) =>
    res.writeHead(status, { 'content-type': type, 'referrer-policy': 'same-origin' }).end(body);
  const json = (res: ServerResponse, status: number, body: unknown) =>
    send(res, status, 'application/json', JSON.stringify(body));
  const html = (res: ServerResponse, body: string) =>
    send(res, 200, 'text/html; charset=utf-8', `<!doctype html><html><body>${body}</body></html>`);
  const readForm = async (req: IncomingMessage) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    return new URLSearchParams(body);
  };
  const server = createServer(async (req, res) => {
    const headers: [string, string][] = [];
    for (let i = 0; i < req.rawHeaders.length; i += 2)
      headers.push([req.rawHeaders[i]!.toLowerCase(), req.rawHeaders[i + 1]!]);
    received.push({ method: req.method!, url: req.url!, headers });
    const url = new URL(req.url!, origin);
    const sid = /(?:^|;\s*)sid=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
    const navigation = req.headers['sec-fetch-mode'] === 'navigate' && req.headers['sec-fetch-dest'] === 'document';
    if (req.method === 'POST' && req.headers.origin !== origin) {
      json(res, 403, { code: 'MISSING_OR_NULL_ORIGIN', message: 'Missing or null Origin' });
      return;
    }
    if (url.pathname === '/authorize') {
      const back = `/consent?${url.searchParams}`;
      // A script's request is told where to go; only a navigation is redirected.
      if (!navigation)
        json(res, 200, { redirect: true, url: sid ? back : `/login?return=${encodeURIComponent(back)}` });
      else res.writeHead(302, { location: sid ? back : `/login?return=${encodeURIComponent(back)}` }).end();
      return;
    }
    if (url.pathname === '/login' && req.method === 'GET') {
      html(
        res,
        `<h1>Sign in</h1><form method="post"><label>Username <input name="username"></label>` +
          `<label>Password <input type="password" name="password"></label><button>Sign in</button></form>`,
      );
      return;
    }
    if (url.pathname === '/login') {
      const form = await readForm(req);
      if (form.get('username') !== USER.username || form.get('password') !== USER.password) {
        json(res, 401, { code: 'BAD_CREDENTIALS' });
        return;
      }
      const id = randomBytes(12).toString('hex');
      sessions.add(id);
      res
        .writeHead(303, {
          location: url.searchParams.get('return') ?? '/',
          'set-cookie': `sid=${id}; Path=/; HttpOnly; SameSite=Lax`,
        })
        .end();
      return;
    }
    if (url.pathname === '/consent' && req.method === 'GET') {
      if (!sid || !sessions.has(sid)) return json(res, 401, { code: 'NO_SESSION' });
      const action = `/consent?${url.search.slice(1).replace(/&/g, '&amp;')}`;
      html(
        res,
        `<h1>Authorize the app</h1><p>The app asks for your profile.</p><form method="post" action="${action}">` +
          `<button name="decision" value="allow">Allow</button>` +
          `<button name="decision" value="deny">Deny</button></form>`,
      );
      return;
    }
    if (url.pathname === '/consent') {
      const form = await readForm(req);
      const state = url.searchParams.get('state') ?? '';
      const params: Record<string, string> =
        form.get('decision') === 'allow'
          ? { code: randomBytes(16).toString('base64url'), state }
          : { error: 'access_denied', state };
      res.writeHead(302, { location: `${redirectUri()}?${new URLSearchParams(params)}` }).end();
      return;
    }
    json(res, 404, { code: 'NOT_FOUND' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    redirectUri: redirectUri(),
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture();
});
afterAll(async () => {
  await fx?.close();
});

function driver() {
  const recorder = new Recorder(new Redactor([USER.password]));
  const http = new HttpClient({ recorder, requestTimeoutMs: 20_000 });
  return { recorder, http, driver: new FormLoginDriver({ http, ...USER }) };
}

const exchanges = (recorder: Recorder) => recorder.evidence.filter((e): e is HttpEvidence => e.kind === 'http');

describe('the form driver against a Fetch-Metadata-aware, Origin-checking IdP', () => {
  const authorizeUrl = () =>
    `${fx.origin}/authorize?${new URLSearchParams({ client_id: 'app', redirect_uri: fx.redirectUri, state: 'st-1' })}`;

  it("signs in and consents: a code comes back; every request a browser's navigation, every header in the transcript", {
    timeout: 30_000,
  }, async () => {
    const { recorder, driver: d } = driver();
    const from = fx.received.length;
    const outcome = await d.authorize(authorizeUrl(), [fx.redirectUri], { consent: 'approve' });
    expect(outcome.kind, JSON.stringify(outcome)).toBe('redirect');
    if (outcome.kind !== 'redirect') return;
    expect(outcome.params.code).toBeTruthy();
    expect(outcome.params.state).toBe('st-1');
    expect(outcome.pages).toEqual(['login', 'consent']);

    const sent = exchanges(recorder);
    // GET authorize (typed), GET login (redirected), POST login, GET consent (redirected), POST consent.
    expect(sent.map((e) => `${e.request.method} ${new URL(e.request.url).pathname}`)).toEqual([
      'GET /authorize',
      'GET /login',
      'POST /login',
      'GET /consent',
      'POST /consent',
    ]);
    const [authorize, login, loginPost, consent, consentPost] = sent.map((e) => e.request.headers);
    expect(authorize).toMatchObject({
      'sec-fetch-mode': 'navigate',
      'sec-fetch-dest': 'document',
      'sec-fetch-site': 'none',
      'sec-fetch-user': '?1',
      'upgrade-insecure-requests': '1',
    });
    expect(authorize!.accept).toMatch(/^text\/html,/);
    expect(authorize!['user-agent']).toMatch(/^Mozilla\/5\.0 .*Chrome\//);
    expect(authorize).not.toHaveProperty('origin');
    expect(authorize).not.toHaveProperty('referer');
    // The redirect to the login page goes on the same navigation: still typed, still no Referer.
    expect(login).toMatchObject({ 'sec-fetch-site': 'none', 'sec-fetch-user': '?1' });
    // The sign-in POST: from the login page (same origin), its Origin and (Referrer-Policy: same-origin) its full URL.
    expect(loginPost).toMatchObject({
      'sec-fetch-mode': 'navigate',
      'sec-fetch-site': 'same-origin',
      'sec-fetch-user': '?1',
      origin: fx.origin,
      referer: sent[1]!.request.url,
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(consent).toMatchObject({ 'sec-fetch-site': 'same-origin', referer: sent[1]!.request.url });
    expect(consent).not.toHaveProperty('origin');
    expect(consentPost).toMatchObject({ origin: fx.origin, referer: sent[3]!.request.url });
    // As reported, the password and the session cookie are masked; the headers are all still there.
    const shown = sent.map((e) => recorder.redactor.http(e));
    expect(shown[2]!.request.body).not.toContain(USER.password);
    expect(shown[3]!.request.headers.cookie).toBe('sid=[REDACTED:cookie]');
    expect(Object.keys(shown[3]!.request.headers)).toEqual(Object.keys(consent!));

    // Every header the server received is in the transcript, with its value (the cookie's is the session's),
    // and the transcript has no header the server did not receive.
    const got = fx.received.slice(from);
    expect(got).toHaveLength(5);
    for (const [i, req] of got.entries()) {
      const recorded = sent[i]!.request.headers;
      expect(Object.keys(recorded).sort(), `request ${i}`).toEqual(req.headers.map(([name]) => name).sort());
      for (const [name, value] of req.headers) expect(recorded[name], `${name} of request ${i}`).toBe(value);
    }
    expect(Object.keys(loginPost!)).toEqual(expect.arrayContaining(['host', 'connection', 'content-length']));
  });

  it('denies: access_denied comes back, with no error on the way', async () => {
    const { driver: d } = driver();
    const outcome = await d.authorize(authorizeUrl(), [fx.redirectUri], { consent: 'deny' });
    expect(outcome.kind, JSON.stringify(outcome)).toBe('redirect');
    if (outcome.kind !== 'redirect') return;
    expect(outcome.params).toEqual({ error: 'access_denied', state: 'st-1' });
    expect(outcome.pages).toEqual(['login', 'consent']);
  });

  it('a server-side request is no navigation: answered as a script; its 403 body is shown unmasked', async () => {
    const { recorder, http } = driver();
    const res = await http.get(authorizeUrl(), { label: 'authorization request as a back-channel call' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ redirect: true });
    const post = await http.send({ url: `${fx.origin}/login`, form: { username: 'a', password: 'b' } });
    expect(post.status).toBe(403);
    const [get, refused] = exchanges(recorder);
    expect(Object.keys(get!.request.headers).filter((h) => h.startsWith('sec-fetch-'))).toEqual([]);
    expect(get!.request.headers['user-agent']).toBe('idp-conformance');
    const shown = recorder.redactor.http(refused!);
    expect(JSON.parse(shown.response!.body!)).toEqual({
      code: 'MISSING_OR_NULL_ORIGIN',
      message: 'Missing or null Origin',
    });
  });
});
