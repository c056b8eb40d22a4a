/**
 * The back-channel logout receiver (harness/flows/logout-receiver.ts): POSTs to its path count, a form body with one
 * logout_token is read, anything else is kept as a problem to judge, a body past MAX_BODY is cut off, and a port that
 * cannot be bound is a clear error.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { listenForLogoutTokens, type LogoutReceiver, MAX_BODY } from '../../harness/flows/logout-receiver.ts';
import { unusedLoopbackPort } from '../../harness/http/ports.ts';

let receiver: LogoutReceiver | undefined;
afterEach(() => receiver?.close());

async function start(): Promise<LogoutReceiver> {
  receiver = await listenForLogoutTokens(`http://127.0.0.1:${await unusedLoopbackPort()}/rp/bc?tenant=1`);
  return receiver;
}

const post = (url: string, body: string, type = 'application/x-www-form-urlencoded') =>
  fetch(url, { method: 'POST', headers: { 'content-type': type }, body });

describe('the back-channel logout receiver', () => {
  it('reads the logout_token of a form POST to its path and answers 200 with no-store', async () => {
    const r = await start();
    const res = await post(r.uri, 'logout_token=a.b.c');
    expect([res.status, res.headers.get('cache-control')]).toEqual([200, 'no-store']);
    expect(await r.first(5_000)).toEqual({ contentType: 'application/x-www-form-urlencoded', token: 'a.b.c' });
  });

  it('ignores other paths and methods, and keeps a malformed delivery as a problem', async () => {
    const r = await start();
    const base = new URL(r.uri);
    expect((await post(`${base.origin}/elsewhere`, 'logout_token=x')).status).toBe(404);
    expect((await fetch(r.uri)).status).toBe(404);
    expect(r.deliveries).toEqual([]);
    await post(r.uri, '{"logout_token":"x"}', 'application/json');
    await post(r.uri, 'logout_token=x&logout_token=y');
    expect(r.deliveries.map((d) => d.problem)).toEqual([
      'the body was sent as application/json, not form-encoded',
      'the form had 2 logout_token parameter(s)',
    ]);
  });

  it('cuts off a body larger than MAX_BODY', async () => {
    const r = await start();
    const res = await post(r.uri, `logout_token=${'x'.repeat(MAX_BODY + 10)}`).catch((error: Error) => error);
    // Either the 413 arrives or the connection is closed while the body is still being sent.
    if (!(res instanceof Error)) expect(res.status).toBe(413);
    expect((await r.first(5_000))?.problem).toBe(`the body was larger than ${MAX_BODY} bytes`);
  });

  it('waits for the delivery a predicate accepts, and gives undefined when none comes in time', async () => {
    const r = await start();
    const wanted = r.first(10_000, (d) => d.token === 'mine');
    await post(r.uri, 'logout_token=other');
    await post(r.uri, 'logout_token=mine');
    expect((await wanted)?.token).toBe('mine');
    expect(await r.first(50, (d) => d.token === 'never')).toBeUndefined();
  });

  it('says which port it could not bind', async () => {
    const r = await start();
    await expect(listenForLogoutTokens(r.uri)).rejects.toThrow(
      new RegExp(`cannot listen on 127\\.0\\.0\\.1:${new URL(r.uri).port} .*EADDRINUSE`),
    );
  });
});
