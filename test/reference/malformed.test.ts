import fc from 'fast-check';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_ERROR_CODES } from '../../protocol/errors.ts';
import { ALICE, authUrl, MACHINE, openLogin, postForm, useServer, WEB } from './helpers.ts';

/** RFC 6749 §5.2 error codes. */
const RFC_ERRORS: readonly string[] = TOKEN_ERROR_CODES;

const ctx = useServer();
const internalErrors: unknown[] = [];
beforeAll(() => {
  ctx.server.app.on('error', (err) => internalErrors.push(err));
});
afterEach(() => {
  expect(internalErrors, 'no request may end in an internal error').toEqual([]);
});

async function post(body: RequestInit['body'] | undefined, headers: Record<string, string> = {}, path = '/token') {
  const res = await fetch(`${ctx.issuer}${path}`, { method: 'POST', headers, ...(body === undefined ? {} : { body }) });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** An RFC 6749 §5.2 error: 400 or 401, JSON, a code from the set, no stack trace, not cached. */
function expectRfcError(res: { status: number; headers: Headers; text: string }, error?: string) {
  expect([400, 401]).toContain(res.status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.headers.get('cache-control')).toBe('no-store');
  const body = JSON.parse(res.text) as { error: string; error_description: string };
  expect(RFC_ERRORS).toContain(body.error);
  if (error) expect(body.error).toBe(error);
  expect(typeof body.error_description).toBe('string');
  expect(res.text).not.toMatch(/\n\s+at |node_modules|\.ts:\d+/);
}

const json = { 'content-type': 'application/json' };
const form = { 'content-type': 'application/x-www-form-urlencoded' };

describe('malformed token requests get RFC error bodies, never a 500', () => {
  it.each<[string, RequestInit['body'] | undefined, Record<string, string>]>([
    ['no body and no content type', undefined, {}],
    ['a body without content type', new TextEncoder().encode('grant_type=client_credentials'), {}],
    ['text/plain', 'grant_type=client_credentials', { 'content-type': 'text/plain' }],
    ['multipart/form-data', 'x', { 'content-type': 'multipart/form-data; boundary=x' }],
    [
      'a non-UTF-8 charset',
      'grant_type=client_credentials',
      { 'content-type': 'application/x-www-form-urlencoded; charset=iso-8859-1' },
    ],
    ['broken JSON', '{"grant_type":', json],
    ['a JSON array', '[{"grant_type":"client_credentials"}]', json],
    ['a JSON string', '"client_credentials"', json],
    ['JSON null', 'null', json],
    ['an object where a string belongs', '{"grant_type":{"$ne":1}}', json],
    ['an array where a string belongs', '{"grant_type":["client_credentials"]}', json],
    ['a number where a string belongs', '{"grant_type":"client_credentials","scope":1}', json],
    ['a repeated JSON key', '{"grant_type":"client_credentials","grant_type":"refresh_token"}', json],
    ['a repeated JSON key hidden by escapes', '{"grant_type":"client_credentials","grant\\u005ftype":"x"}', json],
    ['a repeated form parameter', 'grant_type=client_credentials&grant_type=refresh_token', form],
    ['a repeated form parameter with another value', 'scope=api%3Aread&grant_type=client_credentials&scope=', form],
    ['bracketed form names', 'grant_type[]=client_credentials', form],
    ['an empty form body', '', form],
    ['a body over the size limit', `grant_type=client_credentials&pad=${'a'.repeat(70_000)}`, form],
    [
      'a JSON body over the size limit',
      JSON.stringify({ grant_type: 'client_credentials', pad: 'a'.repeat(70_000) }),
      json,
    ],
    ['deeply nested JSON', `${'['.repeat(20_000)}${']'.repeat(20_000)}`, json],
    [
      'invalid UTF-8',
      new Uint8Array([0x67, 0x72, 0x61, 0x6e, 0x74, 0x5f, 0x74, 0x79, 0x70, 0x65, 0x3d, 0xff, 0xfe]),
      form,
    ],
  ])('%s', async (_, body, headers) => {
    const auth = {
      authorization: `Basic ${Buffer.from(`${MACHINE.clientId}:${MACHINE.clientSecret}`).toString('base64')}`,
    };
    expectRfcError(await post(body, { ...headers, ...auth }), 'invalid_request');
  });

  it('a body over the size limit is refused even when its length is not declared up front', async () => {
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 20; i++) controller.enqueue(new TextEncoder().encode('a'.repeat(8192)));
        controller.close();
      },
    });
    const res = await fetch(`${ctx.issuer}/token`, {
      method: 'POST',
      headers: form,
      body: chunks,
      duplex: 'half',
    } as RequestInit);
    expectRfcError({ status: res.status, headers: res.headers, text: await res.text() }, 'invalid_request');
  });

  it('GET /token is refused with a JSON error', async () => {
    const res = await fetch(`${ctx.issuer}/token`);
    expect(res.status).toBe(405);
    expect(await res.json()).toMatchObject({ error: 'invalid_request' });
  });

  it.each(['client_secret=x', 'client_id=machine&client_secret=any-secret', 'client_assertion=a.b.c'])(
    'client credentials in the request URI (%s) are invalid_request (RFC 6749 §2.3.1)',
    async (query) => {
      const res = await post('grant_type=client_credentials', form, `/token?${query}`);
      expectRfcError(res, 'invalid_request');
      expect(res.status).toBe(400);
    },
  );

  it('property: any body with any content type gets a 400/401 RFC error', async () => {
    const contentType = fc.constantFrom(
      'application/json',
      'application/x-www-form-urlencoded',
      'text/plain',
      'application/xml',
      '',
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string(), fc.json(), fc.string({ unit: 'binary' })),
        contentType,
        async (body, type) => {
          const res = await post(body, type ? { 'content-type': type } : {});
          expectRfcError(res);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('property: any JSON object of odd values gets a 400/401 RFC error', async () => {
    const value = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.string()),
      fc.object(),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(
          fc.constantFrom('grant_type', 'code', 'scope', 'client_id', 'refresh_token', '__proto__', 'x'),
          value,
        ),
        async (obj) => {
          const res = await post(JSON.stringify(obj), json);
          expectRfcError(res);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('malformed browser requests get an error page or an error redirect, never a 500', () => {
  it('property: any query string at /auth', async () => {
    const param = fc.constantFrom(
      'response_type',
      'client_id',
      'redirect_uri',
      'scope',
      'state',
      'code_challenge',
      'code_challenge_method',
      'prompt',
      'nonce',
      'request',
      'claims',
      'response_mode',
    );
    const valid = { response_type: 'code', client_id: WEB.clientId, redirect_uri: WEB.redirectUri, scope: 'openid' };
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(param, fc.string())), fc.string(), async (pairs, raw) => {
        const query = new URLSearchParams(valid);
        for (const [name, value] of pairs) query.append(name, value);
        for (const url of [`${ctx.issuer}/auth?${query}`, `${ctx.issuer}/auth?${encodeURI(raw)}`]) {
          const res = await fetch(url, { redirect: 'manual' });
          expect([200, 303, 400]).toContain(res.status);
          const location = res.headers.get('location');
          if (location) expect(location.startsWith(WEB.redirectUri)).toBe(true);
          await res.arrayBuffer();
        }
      }),
      { numRuns: 60 },
    );
  });

  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  it.each<[string, string]>([
    ['not a JWT', 'not-a-jwt'],
    ['three empty parts', '..'],
    ['a header that is not JSON', `${Buffer.from('{').toString('base64url')}.${b64({})}.`],
    ['a payload that is an array', `${b64({ alg: 'none' })}.${b64([1, 2])}.`],
    ['an HS256 header with a garbage signature', `${b64({ alg: 'HS256' })}.${b64({ state: 'x' })}.AAAA`],
    ['an oversized object', `${b64({ alg: 'ES256' })}.${'A'.repeat(20_000)}.AAAA`],
  ])('a malformed request object (%s) gets invalid_request_object at the redirect_uri', async (_name, request) => {
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: WEB.clientId,
      redirect_uri: WEB.redirectUri,
      scope: 'openid',
      state: 'st',
      request,
    });
    // POST (OIDC Core §3.1.2.1): the oversized object would not fit the query of a GET.
    const res = await fetch(`${ctx.issuer}/auth`, { method: 'POST', redirect: 'manual', headers: form, body: query });
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location') ?? '');
    expect(location.href.startsWith(WEB.redirectUri)).toBe(true);
    expect(location.searchParams.get('error')).toBe('invalid_request_object');
    expect(location.searchParams.get('state')).toBe('st');
  });

  it('a JSON or oversized login POST gets the error page', async () => {
    const { action, cookie } = await openLogin(
      authUrl(ctx.issuer, {
        response_type: 'code',
        client_id: WEB.clientId,
        redirect_uri: WEB.redirectUri,
        scope: 'openid',
      }),
    );
    const asJson = await fetch(action, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...json, cookie },
      body: JSON.stringify(ALICE),
    });
    expect(asJson.status).toBe(400);
    expect(asJson.headers.get('content-type')).toMatch(/^text\/html/);
    const huge = await postForm(action, cookie, { username: 'a'.repeat(70_000) });
    expect(huge.status).toBe(400);
    expect(await huge.text()).not.toMatch(/\n\s+at /);
  });
});
