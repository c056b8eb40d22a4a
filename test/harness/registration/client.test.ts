import { describe, expect, it } from 'vitest';
import { HttpClient } from '../../../harness/http/client.ts';
import { Recorder } from '../../../harness/http/recorder.ts';
import { Redactor } from '../../../harness/redact/redact.ts';
import { read, register, remove, unmanageable, update } from '../../../harness/registration/client.ts';

const ENDPOINT = 'https://idp.example/reg';
const SECRET = 'issued-secret-0123456789abcdef';
const TOKEN = 'rat-0123456789abcdefABCDEF';

/** A registration endpoint in a fetch: one client, its configuration endpoint guarded by TOKEN. */
function fakeRegistrar(options: { refuse?: unknown; iat?: string } = {}) {
  const clients = new Map<string, Record<string, unknown>>();
  const seen: { method: string; url: string; authorization?: string; body?: string }[] = [];
  const json = (status: number, body: unknown) =>
    new Response(body === undefined ? null : JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/json' },
    });
  const fetchImpl = (async (url: string, init: RequestInit) => {
    const headers = init.headers as Record<string, string>;
    const body = typeof init.body === 'string' ? init.body : undefined;
    seen.push({
      method: init.method!,
      url,
      ...(headers.authorization ? { authorization: headers.authorization } : {}),
      ...(body ? { body } : {}),
    });
    if (url === ENDPOINT) {
      if (options.iat && headers.authorization !== `Bearer ${options.iat}`)
        return json(401, { error: 'invalid_token' });
      if (options.refuse) return json(400, options.refuse);
      const metadata = JSON.parse(body!) as Record<string, unknown>;
      const client = { ...metadata, client_id: 'c1', client_secret: SECRET, client_secret_expires_at: 0 };
      clients.set('c1', client);
      return json(201, { ...client, registration_access_token: TOKEN, registration_client_uri: `${ENDPOINT}/c1` });
    }
    const id = url.slice(ENDPOINT.length + 1);
    if (headers.authorization !== `Bearer ${TOKEN}` || !clients.has(id)) return json(401, { error: 'invalid_token' });
    if (init.method === 'DELETE') {
      clients.delete(id);
      return json(204, undefined);
    }
    if (init.method === 'PUT') clients.set(id, JSON.parse(body!) as Record<string, unknown>);
    return json(200, clients.get(id));
  }) as unknown as typeof fetch;
  const recorder = new Recorder(new Redactor());
  return { http: new HttpClient({ recorder, fetch: fetchImpl }), recorder, clients, seen };
}

describe('the registration client (RFC 7591, RFC 7592)', () => {
  it('registers, reads, updates and deletes a client with its registration access token', async () => {
    const { http, clients, seen } = fakeRegistrar({ iat: 'initial-token-123456' });
    const created = await register(
      http,
      ENDPOINT,
      { redirect_uris: ['http://127.0.0.1:9/cb'] },
      {
        initialAccessToken: 'initial-token-123456',
      },
    );
    if (!created.ok) throw new Error(created.problem);
    expect(created.status).toBe(201);
    expect(created.value).toMatchObject({
      clientId: 'c1',
      clientSecret: SECRET,
      registrationAccessToken: TOKEN,
      registrationClientUri: `${ENDPOINT}/c1`,
      clientSecretExpiresAt: 0,
    });
    expect(seen[0]).toMatchObject({ method: 'POST', authorization: 'Bearer initial-token-123456' });
    const got = await read(http, created.value);
    expect(got.ok && got.value.metadata.redirect_uris).toEqual(['http://127.0.0.1:9/cb']);
    const changed = await update(http, created.value, { ...created.value.metadata, client_name: 'x' });
    expect(changed.ok && changed.value.metadata.client_name).toBe('x');
    // RFC 7592 §2.2: the update carries the client_id, never the server's own fields.
    const put = JSON.parse(seen.find((s) => s.method === 'PUT')!.body!) as Record<string, unknown>;
    expect(put.client_id).toBe('c1');
    expect(put).not.toHaveProperty('registration_access_token');
    expect(put).not.toHaveProperty('registration_client_uri');
    const deleted = await remove(http, created.value);
    expect(deleted).toMatchObject({ ok: true, status: 204 });
    expect(clients.size).toBe(0);
  });

  it('returns an RFC 7591 error body as data, quoted in the problem', async () => {
    const { http } = fakeRegistrar({
      refuse: { error: 'invalid_client_metadata', error_description: 'grant_types not allowed' },
    });
    const out = await register(http, ENDPOINT, { grant_types: ['password'] });
    expect(out).toMatchObject({ ok: false, status: 400, error: 'invalid_client_metadata' });
    expect(!out.ok && out.problem).toBe(
      'the registration request got HTTP 400 with "invalid_client_metadata": "grant_types not allowed"',
    );
  });

  it('a wrong registration access token gets the error outcome, not an exception', async () => {
    const { http } = fakeRegistrar();
    const created = await register(http, ENDPOINT, {});
    if (!created.ok) throw new Error(created.problem);
    const out = await read(http, created.value, { token: 'wrong-token-0123456789' });
    expect(out).toMatchObject({ ok: false, status: 401, error: 'invalid_token' });
    const none = await remove(http, created.value, { token: '' });
    expect(none).toMatchObject({ ok: false, status: 401 });
  });

  it('a registration without a configuration endpoint cannot be managed, and says why', () => {
    expect(unmanageable({ clientId: 'c', metadata: {} })).toMatch(/no registration_client_uri/);
    expect(unmanageable({ clientId: 'c', registrationClientUri: 'https://x/c', metadata: {} })).toMatch(
      /no registration_access_token/,
    );
  });

  it('masks the issued secret and the registration access token in the transcript', async () => {
    const { http, recorder } = fakeRegistrar();
    const created = await register(http, ENDPOINT, {});
    if (!created.ok) throw new Error(created.problem);
    await read(http, created.value);
    await remove(http, created.value);
    const shown = JSON.stringify(recorder.evidence.map((e) => recorder.redactor.evidence(e)));
    expect(shown).toContain('[REDACTED:registration_access_token:');
    expect(shown).toContain('[REDACTED:client_secret:');
    expect(shown).not.toContain(SECRET);
    expect(shown).not.toContain(TOKEN);
    expect(recorder.evidence).toHaveLength(3);
  });
});
