/** HttpClient.sendAtOnce: N requests on N connections, all written before any is answered. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../../harness/http/client.ts';
import { Recorder } from '../../harness/http/recorder.ts';
import { Redactor } from '../../harness/redact/redact.ts';
import { TargetUnreachableError } from '../../harness/model/failures.ts';
import { closedPort } from '../support/ports.ts';

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** A server that answers nobody until `n` requests have arrived, then everybody. */
async function barrier(n: number): Promise<{ url: string; sockets: Set<unknown>; bodies: string[] }> {
  const waiting: [IncomingMessage, ServerResponse, string][] = [];
  const sockets = new Set<unknown>();
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    sockets.add(req.socket);
    let body = '';
    req
      .on('data', (c: Buffer) => {
        body += c.toString();
      })
      .on('end', () => {
        bodies.push(body);
        waiting.push([req, res, body]);
        if (waiting.length < n) return;
        waiting.forEach(([, r], i) => {
          r.writeHead(i === 0 ? 200 : 400, { 'content-type': 'application/json' }).end(
            JSON.stringify(i === 0 ? { access_token: `at-${i}` } : { error: 'invalid_grant' }),
          );
        });
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`, sockets, bodies };
}

describe('HttpClient.sendAtOnce', () => {
  it('opens N connections and writes every request before any answer comes, recording each exchange', async () => {
    const { url, sockets, bodies } = await barrier(8);
    const recorder = new Recorder(new Redactor());
    const http = new HttpClient({ recorder, requestTimeoutMs: 3000 });
    const responses = await http.sendAtOnce(
      { url, form: { grant_type: 'authorization_code', code: 'abc' }, label: 'redeem' },
      8,
    );
    expect(responses.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400, 400, 400, 400]);
    expect(responses.filter((r) => r.body.access_token).length).toBe(1);
    expect(sockets.size).toBe(8);
    expect(bodies).toEqual(Array(8).fill('grant_type=authorization_code&code=abc'));
    expect(recorder.evidence.map((e) => e.label)).toEqual(
      Array.from({ length: 8 }, (_, i) => `redeem (${i + 1} of 8, at once)`),
    );
  });

  it('a target that refuses the connections is unreachable, not a verdict', async () => {
    const http = new HttpClient({ recorder: new Recorder(new Redactor()), requestTimeoutMs: 1000 });
    const error = await http
      .sendAtOnce({ url: `http://127.0.0.1:${await closedPort()}/token`, form: {} }, 3)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TargetUnreachableError);
  });
});
