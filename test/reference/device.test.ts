import request from 'supertest';
import { createLocalJWKSet, decodeJwt, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { createReferenceServer, SEEDED_CLIENTS, type ClientConfig } from '../../reference/index.ts';
import {
  activate,
  ALICE,
  DEVICE_GRANT,
  errorText,
  FakeClock,
  poll,
  postForm,
  requestDevice,
  startDevice,
  TV,
  UserAgent,
  useServer,
} from './device-helpers.ts';

const USER_CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;
const WRONG_CODE = 'That code is not valid. Check the code on your device and try again.';
const GONE = 'This code has expired or has already been used. Start again on your device.';
const WEB = SEEDED_CLIENTS.confidential;
const webBasic = `Basic ${Buffer.from(`${WEB.clientId}:${WEB.clientSecret}`).toString('base64')}`;

/** An RFC 6749 §5.2 error: the status, a JSON body with error and a description, never a 500. */
function expectError(
  res: { status: number; headers: Headers; json: Record<string, unknown> },
  error: string,
  status = 400,
) {
  expect(res.json).toMatchObject({ error, error_description: expect.any(String) });
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.json).not.toHaveProperty('access_token');
}

describe('device authorization endpoint', () => {
  const ctx = useServer();

  it('is advertised in discovery, with the device code grant', async () => {
    const d = (await (await fetch(`${ctx.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(d.device_authorization_endpoint).toBe(`${ctx.issuer}/device/auth`);
    expect(d.grant_types_supported).toContain(DEVICE_GRANT);
  });

  it(
    'gives a public client a device code, a short unambiguous user code, the activation URLs, expires_in ' +
      'and interval',
    async () => {
      const res = await requestDevice(ctx.issuer);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const body = res.json;
      expect(Object.keys(body).sort()).toEqual([
        'device_code',
        'expires_in',
        'interval',
        'user_code',
        'verification_uri',
        'verification_uri_complete',
      ]);
      expect(body.device_code).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(body.user_code).toMatch(USER_CODE);
      expect(body.verification_uri).toBe(`${ctx.issuer}/activate`);
      expect(body.verification_uri_complete).toBe(`${ctx.issuer}/activate?user_code=${body.user_code}`);
      expect(body).toMatchObject({ expires_in: 600, interval: 5 });
      const again = await requestDevice(ctx.issuer);
      expect(again.json.device_code).not.toBe(body.device_code);
      expect(again.json.user_code).not.toBe(body.user_code);
    },
  );

  it('accepts a JSON body', async () => {
    const res = await fetch(`${ctx.issuer}/device/auth`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: TV.clientId }),
    });
    expect(res.status).toBe(200);
  });

  it.each([
    ['no client_id', {}, 'invalid_client', 401],
    ['an unknown client', { client_id: 'nobody' }, 'invalid_client', 401],
    ['a public client presenting a secret', { client_id: TV.clientId, client_secret: 'x' }, 'invalid_client', 401],
    ["a scope beyond the client's", { client_id: TV.clientId, scope: 'openid email' }, 'invalid_scope', 400],
    ['an unknown scope', { client_id: TV.clientId, scope: 'openid root' }, 'invalid_scope', 400],
    [
      'a scope with characters outside RFC 6749 §3.3',
      { client_id: TV.clientId, scope: 'open"id' },
      'invalid_request',
      400,
    ],
  ])('%s → %s', async (_, body, error, status) => {
    expectError(await requestDevice(ctx.issuer, body), error, status);
  });

  it('refuses a client that may not use the device grant: unauthorized_client', async () => {
    expectError(
      await postForm(`${ctx.issuer}/device/auth`, { scope: 'openid' }, { authorization: webBasic }),
      'unauthorized_client',
    );
  });

  it.each([
    ['a repeated parameter', 'client_id=tv-device&client_id=tv-device', 'application/x-www-form-urlencoded'],
    ['a text/plain body', 'client_id=tv-device', 'text/plain'],
    ['broken JSON', '{"client_id":', 'application/json'],
    ['a JSON value that is not a string', '{"client_id":["tv-device"]}', 'application/json'],
  ])('answers %s with invalid_request', async (_, body, type) => {
    const res = await fetch(`${ctx.issuer}/device/auth`, { method: 'POST', headers: { 'content-type': type }, body });
    expectError(
      { status: res.status, headers: res.headers, json: (await res.json()) as Record<string, unknown> },
      'invalid_request',
    );
  });

  it('answers GET with a JSON 405', async () => {
    const res = await fetch(`${ctx.issuer}/device/auth`);
    expect(res.status).toBe(405);
    expect(await res.json()).toMatchObject({ error: 'invalid_request' });
  });
});

describe('polling the token endpoint', () => {
  const clock = new FakeClock();
  const ctx = useServer({ now: clock.now });

  it('before the user acts: authorization_pending and no tokens', async () => {
    const device = await startDevice(ctx.issuer);
    const res = await poll(ctx.issuer, device.device_code);
    expectError(res, 'authorization_pending');
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('faster than the interval: slow_down, and the interval grows by 5 seconds each time', async () => {
    const device = await startDevice(ctx.issuer);
    expectError(await poll(ctx.issuer, device.device_code), 'authorization_pending');
    clock.advance(4);
    expectError(await poll(ctx.issuer, device.device_code), 'slow_down');
    clock.advance(9); // the interval is 10 s now
    expectError(await poll(ctx.issuer, device.device_code), 'slow_down');
    clock.advance(15); // and 15 s now
    expectError(await poll(ctx.issuer, device.device_code), 'authorization_pending');
    clock.advance(14);
    expectError(await poll(ctx.issuer, device.device_code), 'slow_down');
    clock.advance(20);
    expectError(await poll(ctx.issuer, device.device_code), 'authorization_pending');
  });

  it('tolerates 250 ms of network jitter, not more', async () => {
    const device = await startDevice(ctx.issuer);
    expectError(await poll(ctx.issuer, device.device_code), 'authorization_pending');
    clock.ms += 4750;
    expectError(await poll(ctx.issuer, device.device_code), 'authorization_pending');
    clock.ms += 4749;
    expectError(await poll(ctx.issuer, device.device_code), 'slow_down');
  });

  it(
    'after approval: an access token, an ID token and a refresh token, once; later polls get ' + 'invalid_grant',
    async () => {
      const device = await startDevice(ctx.issuer, 'openid offline_access');
      expectError(await poll(ctx.issuer, device.device_code), 'authorization_pending');
      const { last } = await activate(device.verification_uri, device.user_code, { decision: 'approve' });
      expect(last.status).toBe(200);
      expect(last.html).toContain('Device connected');
      // No slow_down once approved: slow_down is a variant of authorization_pending (RFC 8628 §3.5).
      const res = await poll(ctx.issuer, device.device_code);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.json).toMatchObject({
        token_type: 'Bearer',
        scope: 'openid offline_access',
        expires_in: 3600,
        access_token: expect.any(String),
        id_token: expect.any(String),
        refresh_token: expect.any(String),
      });
      const jwks = createLocalJWKSet(ctx.server.context.keys.publicJwks());
      const at = await jwtVerify(String(res.json.access_token), jwks, { currentDate: new Date(clock.ms) });
      expect(at.payload).toMatchObject({
        sub: ALICE.sub,
        client_id: TV.clientId,
        iss: ctx.issuer,
        scope: 'openid offline_access',
      });
      expect(decodeJwt(String(res.json.id_token))).toMatchObject({
        sub: ALICE.sub,
        aud: TV.clientId,
        auth_time: expect.any(Number),
      });

      for (let i = 0; i < 2; i++) {
        clock.advance(5);
        expectError(await poll(ctx.issuer, device.device_code), 'invalid_grant');
      }
      const refreshed = await postForm(`${ctx.issuer}/token`, {
        grant_type: 'refresh_token',
        refresh_token: String(res.json.refresh_token),
        client_id: TV.clientId,
      });
      expect(refreshed.status).toBe(200);
      expect(refreshed.json.refresh_token).not.toBe(res.json.refresh_token);
    },
  );

  it("without a scope, the request gets the client's whole scope", async () => {
    const device = await startDevice(ctx.issuer);
    await activate(device.verification_uri, device.user_code, { decision: 'approve' });
    expect((await poll(ctx.issuer, device.device_code)).json.scope).toBe(TV.allowedScope);
  });

  it('after a denial: access_denied, on every later poll too', async () => {
    const device = await startDevice(ctx.issuer);
    const { last } = await activate(device.verification_uri, device.user_code, { decision: 'deny' });
    expect(last.status).toBe(200);
    expect(last.html).toContain('Request denied');
    expectError(await poll(ctx.issuer, device.device_code), 'access_denied');
    clock.advance(5);
    expectError(await poll(ctx.issuer, device.device_code), 'access_denied');
  });

  it('after expiry: expired_token, whether pending or approved; the user code is gone too', async () => {
    const pending = await startDevice(ctx.issuer);
    const approved = await startDevice(ctx.issuer);
    await activate(approved.verification_uri, approved.user_code, { decision: 'approve' });
    clock.advance(600);
    expectError(await poll(ctx.issuer, pending.device_code), 'expired_token');
    expectError(await poll(ctx.issuer, approved.device_code), 'expired_token');
    const { last } = await activate(pending.verification_uri, pending.user_code);
    expect(last.status).toBe(400);
    expect(errorText(last.html)).toBe(WRONG_CODE);
  });

  it('is still pending one second before expiry', async () => {
    const device = await startDevice(ctx.issuer);
    clock.advance(599);
    expectError(await poll(ctx.issuer, device.device_code), 'authorization_pending');
  });

  it.each([
    ['no device_code', { grant_type: DEVICE_GRANT, client_id: TV.clientId }, 'invalid_request', 400],
    [
      'an unknown device_code',
      { grant_type: DEVICE_GRANT, client_id: TV.clientId, device_code: 'nope' },
      'invalid_grant',
      400,
    ],
    ['no client_id', { grant_type: DEVICE_GRANT, device_code: 'nope' }, 'invalid_client', 401],
  ])('%s → %s', async (_, body, error, status) => {
    expectError(await postForm(`${ctx.issuer}/token`, body), error, status);
  });

  it('a repeated device_code is invalid_request; a client without the grant is unauthorized_client', async () => {
    const device = await startDevice(ctx.issuer);
    const repeated = new URLSearchParams({
      grant_type: DEVICE_GRANT,
      client_id: TV.clientId,
      device_code: device.device_code,
    });
    repeated.append('device_code', device.device_code);
    expectError(await postForm(`${ctx.issuer}/token`, repeated), 'invalid_request');
    const web = await postForm(
      `${ctx.issuer}/token`,
      { grant_type: DEVICE_GRANT, device_code: device.device_code },
      { authorization: webBasic },
    );
    expectError(web, 'unauthorized_client');
  });

  it('accepts a JSON poll', async () => {
    const device = await startDevice(ctx.issuer);
    const res = await fetch(`${ctx.issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: DEVICE_GRANT, client_id: TV.clientId, device_code: device.device_code }),
    });
    expect(await res.json()).toMatchObject({ error: 'authorization_pending' });
  });
});

describe('a device code is bound to its client', () => {
  const otherTv: ClientConfig = { ...TV, clientId: 'other-tv', name: 'Other TV' };
  const ctx = useServer({ clients: [...Object.values(SEEDED_CLIENTS), otherTv] });

  it('another device client gets invalid_grant, before and after approval, and takes nothing away', async () => {
    const device = await startDevice(ctx.issuer);
    expectError(await poll(ctx.issuer, device.device_code, otherTv.clientId), 'invalid_grant');
    await activate(device.verification_uri, device.user_code, { decision: 'approve' });
    expectError(await poll(ctx.issuer, device.device_code, otherTv.clientId), 'invalid_grant');
    expect((await poll(ctx.issuer, device.device_code)).status).toBe(200);
  });
});

describe('activation page', () => {
  const evil = '<script>alert("x")</script> & Co';
  const evilTv: ClientConfig = { ...TV, clientId: 'evil-tv', name: evil };
  const ctx = useServer({ clients: [...Object.values(SEEDED_CLIENTS), evilTv] });

  it('is a framing-protected, uncached form, prefilled from verification_uri_complete', async () => {
    const device = await startDevice(ctx.issuer);
    const res = await fetch(device.verification_uri_complete);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('cache-control')).toBe('no-store');
    const html = await res.text();
    expect(html).toContain(`<form method="post" action="${ctx.issuer}/activate">`);
    expect(html).toMatch(/<label for="user_code">/);
    expect(html).toContain(`value="${device.user_code}"`);
    expect(html).not.toMatch(/<script/);
    expect(await (await fetch(device.verification_uri)).text()).toContain('value=""');
  });

  it('escapes a user_code from the URL and from the form', async () => {
    const script = '"><script>alert(1)</script>';
    const shown = await (await fetch(`${ctx.issuer}/activate?${new URLSearchParams({ user_code: script })}`)).text();
    expect(shown).not.toContain('<script>');
    expect(shown).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
    const posted = await new UserAgent().post(`${ctx.issuer}/activate`, { user_code: script });
    expect(posted.status).toBe(400);
    expect(posted.html).not.toContain('<script>');
    expect(posted.html).toContain('&lt;script&gt;');
  });

  it('accepts the code in any case, with or without the dash and spaces', async () => {
    for (const typed of [
      (c: string) => c.toLowerCase(),
      (c: string) => c.replace('-', ''),
      (c: string) => ` ${c.slice(0, 2)} ${c.slice(2).toLowerCase()} `,
    ]) {
      const device = await startDevice(ctx.issuer);
      const res = await new UserAgent().post(device.verification_uri, { user_code: typed(device.user_code) });
      expect(res.status).toBe(303);
      expect(res.location).toMatch(new RegExp(`^${ctx.issuer}/activate/[A-Za-z0-9_-]{43}$`));
    }
  });

  it('gives unknown, malformed, missing and already-used codes the same message', async () => {
    const used = await startDevice(ctx.issuer);
    await activate(used.verification_uri, used.user_code, { decision: 'approve' });
    for (const code of ['BCDF-GHJK', 'AEIO-U123', '', used.user_code]) {
      const res = await new UserAgent().post(`${ctx.issuer}/activate`, { user_code: code });
      expect(res.status).toBe(400);
      expect(res.location).toBeUndefined();
      expect(errorText(res.html)).toBe(WRONG_CODE);
    }
  });

  it('every step forbids framing: code entry, login, decision, done', async () => {
    const device = await startDevice(ctx.issuer);
    const { agent } = await activate(device.verification_uri, device.user_code, { decision: 'approve' });
    expect(agent.pages.map((p) => p.status)).toEqual([303, 200, 303, 200, 200]);
    for (const page of agent.pages) {
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    }
  });

  it('reuses the login page: a wrong password shows it again with the username kept', async () => {
    const device = await startDevice(ctx.issuer);
    const { agent, last } = await activate(device.verification_uri, device.user_code, { password: 'wrong' });
    expect(last.status).toBe(200);
    expect(last.html).toContain('Invalid username or password.');
    expect(last.html).toContain(`value="${ALICE.username}"`);
    expect(last.html).toContain('Living Room TV');
    const retried = await agent.submit(last, { username: ALICE.username, password: ALICE.password });
    expect(retried.status).toBe(303);
  });

  it('the decision page names the client, the scopes and the user code, escaped', async () => {
    const res = await requestDevice(ctx.issuer, { client_id: evilTv.clientId, scope: 'openid profile' });
    const device = res.json as { verification_uri: string; user_code: string };
    const { last } = await activate(device.verification_uri, device.user_code);
    expect(last.status).toBe(200);
    expect(last.html).not.toContain(evil);
    expect(last.html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Co');
    for (const scope of ['openid', 'profile']) expect(last.html).toContain(`<code>${scope}</code>`);
    expect(last.html).toContain(`<code>${device.user_code}</code>`);
    expect(last.html).toMatch(/<button type="submit" name="decision" value="approve"/);
    expect(last.html).toMatch(/<button type="submit" name="decision" value="deny"/);
  });

  it('refuses the login and decision steps without the activation cookie, or for an unknown activation', async () => {
    const device = await startDevice(ctx.issuer);
    const entered = await new UserAgent().post(device.verification_uri, { user_code: device.user_code });
    const stranger = new UserAgent();
    for (const step of ['', '/login', '/consent']) {
      const res =
        step === ''
          ? await stranger.get(entered.location!)
          : await stranger.post(`${entered.location}${step}`, { decision: 'approve' });
      expect(res.status).toBe(400);
      expect(errorText(res.html)).toContain('another browser');
    }
    const unknown = await stranger.get(`${ctx.issuer}/activate/nope`);
    expect(unknown.status).toBe(400);
    expect(errorText(unknown.html)).toContain('unknown or has expired');
    expectError(await poll(ctx.issuer, device.device_code), 'authorization_pending');
  });

  it('needs a login before the decision, and takes one decision only', async () => {
    const device = await startDevice(ctx.issuer);
    const agent = new UserAgent();
    const entered = await agent.post(device.verification_uri, { user_code: device.user_code });
    const early = await agent.post(`${entered.location}/consent`, { decision: 'approve' });
    expect(early.status).toBe(400);
    expect(errorText(early.html)).toContain('Sign in before');
    const { last } = await activate(device.verification_uri, device.user_code, { agent });
    expect(last.status).toBe(200);
    const bad = await agent.submit(last, { decision: 'maybe' });
    expect(bad.status).toBe(400);
    expect((await agent.submit(last, { decision: 'deny' })).status).toBe(200);
    const again = await agent.submit(last, { decision: 'approve' });
    expect(again.status).toBe(400);
    expect(errorText(again.html)).toBe(GONE);
    expectError(await poll(ctx.issuer, device.device_code), 'access_denied');
  });

  it('two browsers with the same code: the first decision wins', async () => {
    const device = await startDevice(ctx.issuer);
    const a = await activate(device.verification_uri, device.user_code);
    const b = await activate(device.verification_uri, device.user_code);
    expect((await a.agent.submit(a.last, { decision: 'approve' })).status).toBe(200);
    const late = await b.agent.submit(b.last, { decision: 'deny' });
    expect(late.status).toBe(400);
    expect(errorText(late.html)).toBe(GONE);
    expect((await poll(ctx.issuer, device.device_code)).status).toBe(200);
  });
});

describe('activation page: wrong codes are rate-limited (RFC 8628 §5.1)', () => {
  const clock = new FakeClock();
  const ctx = useServer({ now: clock.now });

  it('after 10 wrong codes from one address, every code is refused for 15 minutes', async () => {
    const device = await startDevice(ctx.issuer);
    for (let i = 0; i < 10; i++) {
      expect((await new UserAgent().post(device.verification_uri, { user_code: 'BCDF-GHJK' })).status).toBe(400);
    }
    const limited = await new UserAgent().post(device.verification_uri, { user_code: device.user_code });
    expect(limited.status).toBe(429);
    expect(errorText(limited.html)).toBe('Too many wrong codes. Wait a few minutes, then try again.');
    clock.advance(15 * 60 - 1);
    expect((await new UserAgent().post(device.verification_uri, { user_code: device.user_code })).status).toBe(429);
    clock.advance(1);
    // The device code lives 10 minutes: ask for a new one, as a device would.
    const fresh = await startDevice(ctx.issuer);
    expect((await new UserAgent().post(fresh.verification_uri, { user_code: fresh.user_code })).status).toBe(303);
  });
});

describe('options: deviceAuthUrl and deviceInterval', () => {
  const deviceAuth = async (server: ReturnType<typeof createReferenceServer>) => {
    const res = await request(server.app.callback())
      .post(new URL(server.context.url('/device/auth')).pathname)
      .type('form')
      .send({ client_id: TV.clientId })
      .expect(200);
    return res.body as { verification_uri: string; user_code: string; interval: number };
  };
  const serve = async (options: Parameters<typeof createReferenceServer>[0], path: string, prefix: string) => {
    const server = createReferenceServer(options);
    try {
      const device = await deviceAuth(server);
      expect(device.verification_uri).toBe(prefix);
      const agent = request(server.app.callback());
      const page = await agent.get(path).expect(200);
      expect(page.text).toContain(`action="${prefix}"`);
      const entered = await agent.post(path).type('form').send({ user_code: device.user_code }).expect(303);
      expect(entered.headers.location).toMatch(new RegExp(`^${prefix}/[A-Za-z0-9_-]{43}$`));
      return entered.headers['set-cookie']?.[0] ?? '';
    } finally {
      await server.close();
    }
  };

  it('a deviceAuthUrl below the issuer: the pages are served at its path', async () => {
    const cookie = await serve(
      { issuer: 'https://idp.example.test/tenant', deviceAuthUrl: 'https://idp.example.test/tenant/device/' },
      '/tenant/device/activate',
      'https://idp.example.test/tenant/device/activate',
    );
    expect(cookie).toMatch(
      /Path=\/tenant\/device\/activate\/[A-Za-z0-9_-]{43}; Max-Age=600; HttpOnly; SameSite=Lax; Secure/,
    );
  });

  it('a deviceAuthUrl on another origin: advertised as given, served at /activate here', async () => {
    await serve(
      { issuer: 'https://idp.example.test', deviceAuthUrl: 'https://tv.example.test' },
      '/activate',
      'https://tv.example.test/activate',
    );
  });

  it("a deviceAuthUrl outside the issuer's path: served at {issuer}/activate", async () => {
    await serve(
      { issuer: 'https://idp.example.test/tenant', deviceAuthUrl: 'https://idp.example.test/device' },
      '/tenant/activate',
      'https://idp.example.test/device/activate',
    );
  });

  it('deviceInterval sets the interval and the slow_down threshold', async () => {
    const clock = new FakeClock();
    const server = createReferenceServer({ deviceInterval: 2, now: clock.now });
    const { issuer } = await server.listen(0, '127.0.0.1');
    try {
      const device = await startDevice(issuer);
      expect(device.interval).toBe(2);
      expectError(await poll(issuer, device.device_code), 'authorization_pending');
      clock.advance(1);
      expectError(await poll(issuer, device.device_code), 'slow_down');
      clock.advance(7);
      expectError(await poll(issuer, device.device_code), 'authorization_pending');
    } finally {
      await server.close();
    }
  });

  it.each([
    [{ deviceAuthUrl: 'not a url' }, /deviceAuthUrl "not a url" is not a URL/],
    [{ deviceAuthUrl: 'https://tv.example.test/?x=1' }, /deviceAuthUrl .* without query or fragment/],
    [{ deviceAuthUrl: 'ftp://tv.example.test' }, /deviceAuthUrl .* must be an http\(s\) URL/],
    [{ deviceInterval: 0 }, /deviceInterval must be a whole number of seconds, at least 1/],
    [{ deviceInterval: 1.5 }, /deviceInterval must be a whole number/],
  ])('refuses %o', (options, message) => {
    expect(() => createReferenceServer(options)).toThrow(message);
  });
});

describe('the no-frame-protection flaw covers the activation pages too', () => {
  const ctx = useServer({ flaws: ['no-frame-protection'] });

  it('drops the framing headers there', async () => {
    const res = await fetch(`${ctx.issuer}/activate`);
    expect(res.headers.get('x-frame-options')).toBeNull();
    expect(res.headers.get('content-security-policy')).not.toContain('frame-ancestors');
  });
});
