/**
 * The device side of RFC 8628 in the harness: the poller keeps the interval (and slow_down's
 * +5 s) and stops waiting when the scenario is aborted; the form driver activates devices through
 * the activation pages of the reference and of oidc-provider, approving or denying.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../harness/config/load.ts';
import { DEFAULT_POLL_INTERVAL_SECONDS, DevicePoller } from '../../harness/flows/device.ts';
import { HttpClient } from '../../harness/http/client.ts';
import { Recorder } from '../../harness/http/recorder.ts';
import type { DeviceActivation } from '../../harness/login/driver.ts';
import { FormLoginDriver } from '../../harness/login/form.ts';
import { readPage } from '../../harness/login/html.ts';
import { Redactor } from '../../harness/redact/redact.ts';
import { GRANT } from '../../harness/target/target.ts';
import { createReferenceServer, SEEDED_CLIENTS, SEEDED_USER, type ReferenceServer } from '../../reference/index.ts';
import { type StartedOidcProvider, startOidcProvider } from '../../interop/oidc-provider/provider.ts';

const TV: Client = { role: 'device', clientId: 'tv', scope: '', authMethod: 'none' };

/** A token endpoint that answers with `answers` in turn and records when each poll arrived. */
function fakeTokenEndpoint(answers: Record<string, unknown>[]) {
  const arrivals: number[] = [];
  const fetchImpl = (async () => {
    arrivals.push(performance.now());
    const body = answers[Math.min(arrivals.length - 1, answers.length - 1)];
    return new Response(JSON.stringify(body), {
      status: body?.access_token ? 200 : 400,
      headers: { 'content-type': 'application/json' },
    });
  }) as typeof fetch;
  const http = new HttpClient({
    recorder: new Recorder(new Redactor()),
    tokenEndpoint: 'https://idp.test/token',
    fetch: fetchImpl,
  });
  return { http, arrivals };
}

const gaps = (times: number[]) => times.slice(1).map((t, i) => t - times[i]!);

describe('the device poller', () => {
  it('polls at once the first time, then no sooner than the interval after the previous answer', async () => {
    // At once, without a clock: with an interval of an hour, a first poll that waited would outlast the test.
    const first = fakeTokenEndpoint([{ error: 'authorization_pending' }]);
    const patient = new DevicePoller({ http: first.http, client: TV, deviceCode: 'dc-1', interval: 3600 });
    expect((await patient.poll()).body.error).toBe('authorization_pending');
    const { http, arrivals } = fakeTokenEndpoint([{ error: 'authorization_pending' }]);
    const poller = new DevicePoller({ http, client: TV, deviceCode: 'dc-1', interval: 0.2 });
    for (let i = 0; i < 3; i++) expect((await poller.poll()).body.error).toBe('authorization_pending');
    expect(arrivals).toHaveLength(3);
    // Only a lower bound: a loaded machine may wait longer, never shorter.
    for (const gap of gaps(arrivals)) expect(gap).toBeGreaterThanOrEqual(195);
  });

  it('sends the device code grant with the client_id of a public client', async () => {
    const requests: string[] = [];
    const http = new HttpClient({
      recorder: new Recorder(new Redactor()),
      tokenEndpoint: 'https://idp.test/token',
      fetch: (async (_url: string, init: RequestInit) => {
        requests.push(String(init.body));
        return new Response('{"error":"authorization_pending"}', { status: 400 });
      }) as typeof fetch,
    });
    await new DevicePoller({ http, client: TV, deviceCode: 'dc-2' }).poll();
    expect(Object.fromEntries(new URLSearchParams(requests[0]))).toEqual({
      client_id: 'tv',
      grant_type: GRANT.device,
      device_code: 'dc-2',
    });
  });

  it('without an interval from the server, waits the RFC default of 5 seconds', () => {
    const { http } = fakeTokenEndpoint([]);
    expect(new DevicePoller({ http, client: TV, deviceCode: 'dc' }).interval).toBe(DEFAULT_POLL_INTERVAL_SECONDS);
    expect(new DevicePoller({ http, client: TV, deviceCode: 'dc', interval: 0 }).interval).toBe(
      DEFAULT_POLL_INTERVAL_SECONDS,
    );
  });

  it('adds 5 seconds to the interval for every slow_down, and `early` polls without waiting', async () => {
    const { http, arrivals } = fakeTokenEndpoint([
      { error: 'authorization_pending' },
      { error: 'slow_down' },
      { error: 'slow_down' },
    ]);
    const poller = new DevicePoller({ http, client: TV, deviceCode: 'dc', interval: 1 });
    await poller.poll();
    await poller.poll({ early: true });
    expect(poller.interval).toBe(6);
    await poller.poll({ early: true });
    expect(poller.interval).toBe(11);
    expect(gaps(arrivals).every((gap) => gap < 500)).toBe(true);
  });

  it('pollPastSlowDown answers the first reply that is not slow_down, keeping the longer interval', async () => {
    const { http, arrivals } = fakeTokenEndpoint([{ error: 'slow_down' }, { error: 'authorization_pending' }]);
    const poller = new DevicePoller({ http, client: TV, deviceCode: 'dc', interval: 0.1 });
    const res = await poller.pollPastSlowDown(); // waits 0.1 s + 5 s after the slow_down, as a device must
    expect(res.body.error).toBe('authorization_pending');
    expect(arrivals).toHaveLength(2);
    expect(gaps(arrivals)[0]).toBeGreaterThanOrEqual(5_095);
  }, 10_000);

  it('stops waiting when the scenario is aborted', async () => {
    const { http, arrivals } = fakeTokenEndpoint([{ error: 'authorization_pending' }]);
    const controller = new AbortController();
    const poller = new DevicePoller({ http, client: TV, deviceCode: 'dc', interval: 30, signal: controller.signal });
    await poller.poll();
    const started = performance.now();
    setTimeout(() => controller.abort(new Error('scenario timed out')), 50);
    await expect(poller.poll()).rejects.toThrow();
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(arrivals).toHaveLength(1);
  });
});

describe('the HTML form reader and form owners', () => {
  it('gives a control to the form its `form` attribute names, wherever it sits', () => {
    const html =
      `<form id="confirm" method="post" action="/device"><input type="hidden" name="confirm" ` +
      `value="yes"/></form>
      <button autofocus type="submit" form="confirm">Continue</button>
      <div><button type="submit" form="confirm" value="yes" name="abort">[ Abort ]</button></div>
      <form id="other" action="/x"><input name="q"><button form="confirm" name="inside" ` +
      `value="1">Elsewhere</button></form>`;
    const page = readPage(html, 'https://idp.test/', 200);
    expect(page.controls.filter((c) => c.form === 0).map((f) => f.name ?? f.text)).toEqual([
      'confirm',
      'Continue',
      'abort',
      'inside',
    ]);
    expect(page.controls.filter((c) => c.form === 1).map((f) => f.name)).toEqual(['q']);
  });

  it('reads void inputs without swallowing the controls after them', () => {
    const page = readPage(
      '<form><input type="hidden" name="xsrf" value="1"/>\n<input type="text" name="user_code"></input></form>',
      'https://idp.test/',
      200,
    );
    expect(page.controls.map((f) => [f.name, f.type, f.form])).toEqual([
      ['xsrf', 'hidden', 0],
      ['user_code', 'text', 0],
    ]);
  });
});

/** Starts a device authorization at `issuer` for the device client and returns what activation needs. */
async function startDevice(issuer: string, clientId: string, scope: string) {
  const res = await fetch(`${issuer}/device/auth`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: clientId, scope }),
  });
  const body = (await res.json()) as Record<string, string>;
  const poll = async () =>
    (await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: GRANT.device, device_code: body.device_code!, client_id: clientId }),
    }).then((r) => r.json())) as Record<string, unknown>;
  const activation = (decision: 'approve' | 'deny'): DeviceActivation => ({
    verificationUri: body.verification_uri!,
    verificationUriComplete: body.verification_uri_complete!,
    userCode: body.user_code!,
    decision,
    useComplete: false,
  });
  return { activation, poll };
}

function formDriver(
  username: string,
  password: string,
  fields: { usernameField?: string; passwordField?: string } = {},
) {
  const recorder = new Recorder(new Redactor());
  return {
    driver: new FormLoginDriver({ http: new HttpClient({ recorder }), username, password, ...fields }),
    recorder,
  };
}

describe('device activation through the form driver, on the reference', () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    server = createReferenceServer({ deviceInterval: 1 });
    await server.listen(0, '127.0.0.1');
  });
  afterAll(async () => {
    await server.close();
  });

  const tv = SEEDED_CLIENTS.device;

  it('enters the code, signs in and approves: the next poll gets tokens', async () => {
    const { activation, poll } = await startDevice(server.issuer, tv.clientId, 'openid offline_access');
    const { driver } = formDriver(SEEDED_USER.username, SEEDED_USER.password);
    const outcome = await driver.activateDevice(activation('approve'));
    expect(outcome).toMatchObject({
      decided: true,
      status: 200,
      headline: 'Device connected',
      pages: ['user-code', 'login', 'consent'],
    });
    expect(await poll()).toMatchObject({ access_token: expect.any(String), refresh_token: expect.any(String) });
  });

  it('denies when asked: the next poll gets access_denied', async () => {
    const { activation, poll } = await startDevice(server.issuer, tv.clientId, 'openid');
    const { driver } = formDriver(SEEDED_USER.username, SEEDED_USER.password);
    expect(await driver.activateDevice(activation('deny'))).toMatchObject({
      decided: true,
      headline: 'Request denied',
    });
    expect(await poll()).toMatchObject({ error: 'access_denied' });
  });

  it('stops without a decision when the code is refused, and says so', async () => {
    const { activation, poll } = await startDevice(server.issuer, tv.clientId, 'openid');
    const { driver } = formDriver(SEEDED_USER.username, SEEDED_USER.password);
    const outcome = await driver.activateDevice({ ...activation('approve'), userCode: 'BBBB-BBBB' });
    expect(outcome).toMatchObject({ decided: false, status: 400, pages: ['user-code'] });
    expect(outcome.reason).toMatch(/code was not accepted/);
    expect(await poll()).toMatchObject({ error: 'authorization_pending' });
  });

  it('stops without a decision when the login fails', async () => {
    const { activation } = await startDevice(server.issuer, tv.clientId, 'openid');
    const { driver } = formDriver(SEEDED_USER.username, 'wrong-password');
    const outcome = await driver.activateDevice(activation('approve'));
    expect(outcome).toMatchObject({ decided: false, pages: ['user-code', 'login'] });
    expect(outcome.reason).toMatch(/login form came back/);
  });
});

describe('device activation through the form driver, on oidc-provider', () => {
  let op: StartedOidcProvider;
  beforeAll(async () => {
    op = await startOidcProvider();
  });
  afterAll(async () => {
    await op.close();
  });

  const driverFor = () =>
    formDriver(op.target.user.username, op.target.user.password, {
      usernameField: op.target.login.usernameField,
      passwordField: op.target.login.passwordField,
    });

  it(
    'confirms the code (its buttons sit outside the form), signs in, consents: the next poll ' + 'gets tokens',
    async () => {
      const device = op.target.clients.device!;
      const { activation, poll } = await startDevice(op.issuer, device.clientId, device.scope!);
      const outcome = await driverFor().driver.activateDevice(activation('approve'));
      expect(outcome).toMatchObject({
        decided: true,
        headline: 'Sign-in Success',
        pages: ['user-code', 'consent', 'login', 'consent'],
      });
      expect(await poll()).toMatchObject({ access_token: expect.any(String), refresh_token: expect.any(String) });
    },
  );

  it('opens verification_uri_complete when offered: the code arrives with it, no code is typed', async () => {
    const device = op.target.clients.device!;
    const { activation, poll } = await startDevice(op.issuer, device.clientId, device.scope!);
    const outcome = await driverFor().driver.activateDevice({ ...activation('approve'), useComplete: true });
    expect(outcome).toMatchObject({
      decided: true,
      headline: 'Sign-in Success',
      pages: ['consent', 'login', 'consent'],
    });
    expect(await poll()).toMatchObject({ access_token: expect.any(String) });
  });

  it('denies with its [ Abort ] button: the next poll gets access_denied', async () => {
    const device = op.target.clients.device!;
    const { activation, poll } = await startDevice(op.issuer, device.clientId, device.scope!);
    const { driver, recorder } = driverFor();
    const outcome = await driver.activateDevice(activation('deny'));
    expect(outcome).toMatchObject({ decided: true, pages: ['user-code', 'consent'] });
    const abort = recorder.evidence.find((e) => e.kind === 'http' && e.request.body?.includes('abort=yes'));
    expect(abort).toBeDefined();
    expect(await poll()).toMatchObject({ error: 'access_denied' });
  });
});
