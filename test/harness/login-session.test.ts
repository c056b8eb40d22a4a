/**
 * The driver API for OIDC session scenarios (AuthorizeOptions.session, interact, method) with the
 * form driver against the reference, and the target config's hooks.rotateKeys.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHooks } from '../../harness/flows/hooks.ts';
import { HttpClient } from '../../harness/http/client.ts';
import { Recorder } from '../../harness/http/recorder.ts';
import { LoginSession } from '../../harness/login/driver.ts';
import { FormLoginDriver } from '../../harness/login/form.ts';
import { PreconditionError } from '../../harness/model/failures.ts';
import { Redactor } from '../../harness/redact/redact.ts';
import { createReferenceServer, SEEDED_CLIENTS, SEEDED_USER, type ReferenceServer } from '../../reference/index.ts';

const WEB = SEEDED_CLIENTS.confidential;
let server: ReferenceServer;
let issuer: string;
beforeAll(async () => {
  server = createReferenceServer({ signingAlg: 'ES256' });
  ({ issuer } = await server.listen(0, '127.0.0.1'));
});
afterAll(() => server.close());

const driver = () =>
  new FormLoginDriver({
    http: new HttpClient({ recorder: new Recorder(new Redactor()) }),
    username: SEEDED_USER.username,
    password: SEEDED_USER.password,
  });
const url = (extra: Record<string, string> = {}) =>
  `${issuer}/auth?${new URLSearchParams({
    response_type: 'code',
    client_id: WEB.clientId,
    redirect_uri: WEB.redirectUris[0]!,
    scope: 'openid',
    state: 's',
    ...extra,
  })}`;
const stopAt = [WEB.redirectUris[0]!];

describe('shared login sessions in the form driver', () => {
  it("carry the IdP's cookies from one authorization to the next; without one, every walk starts anew", async () => {
    const session = new LoginSession();
    const first = await driver().authorize(url(), stopAt, { session });
    expect(first).toMatchObject({ kind: 'redirect', pages: ['login'] });
    const second = await driver().authorize(url({ prompt: 'none' }), stopAt, { session, interact: false });
    expect(second.kind === 'redirect' && second.params.code).toBeTruthy();
    expect(second.pages).toEqual([]);
    const fresh = await driver().authorize(url({ prompt: 'none' }), stopAt, { interact: false });
    expect(fresh.kind === 'redirect' && fresh.params.error).toBe('login_required');
  });

  it('interact: false stops at the login page instead of signing in', async () => {
    const outcome = await driver().authorize(url(), stopAt, { interact: false });
    expect(outcome).toMatchObject({ kind: 'page', status: 200, pages: [] });
    expect(outcome.kind === 'page' && outcome.reason).toMatch(/asked for no interaction/);
  });

  it('method: POST sends the authorization request as a form body', async () => {
    const outcome = await driver().authorize(url(), stopAt, { method: 'POST' });
    expect(outcome).toMatchObject({ kind: 'redirect', pages: ['login'] });
    expect(outcome.kind === 'redirect' && outcome.params.state).toBe('s');
  });
});

describe('hooks.rotateKeys', () => {
  const notes: string[] = [];
  const env = {
    timeoutMs: 5_000,
    note: (text: string) => {
      notes.push(text);
    },
  };

  it('is absent without the config field', () => {
    expect(createHooks({}, env).rotateKeys).toBeUndefined();
  });

  it('POSTs to a URL (2xx = done) and runs a command (exit 0 = done); anything else is a set-up error', async () => {
    let posts = 0;
    const hookServer = createServer((req, res) => {
      if (req.method === 'POST') posts++;
      res.statusCode = req.url === '/ok' ? 204 : 500;
      res.end();
    });
    await new Promise<void>((resolve) => hookServer.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(hookServer.address() as AddressInfo).port}`;
    try {
      await createHooks({ hooks: { rotateKeys: `${base}/ok` } }, env).rotateKeys!();
      expect(posts).toBe(1);
      await expect(createHooks({ hooks: { rotateKeys: `${base}/broken` } }, env).rotateKeys!()).rejects.toThrow(
        PreconditionError,
      );
      await createHooks({ hooks: { rotateKeys: 'exit 0' } }, env).rotateKeys!();
      const failing = createHooks({ hooks: { rotateKeys: 'echo nope >&2; exit 3' } }, env).rotateKeys!();
      await expect(failing).rejects.toThrow(/exit 3.*nope/);
      expect(notes.join('\n')).not.toContain(base);
    } finally {
      await new Promise<void>((resolve) => hookServer.close(() => resolve()));
    }
  });
});
