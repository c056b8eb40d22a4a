/** The pure parts of the checks that present tokens: challenges, JWT detection, granted scope. */
import { describe, expect, it } from 'vitest';
import { ref } from '../support/requirements.ts';
import { CheckFailure } from '../../harness/model/failures.ts';
import type { HttpResponse } from '../../harness/http/client.ts';
import { bearerChallenge, expectIntrospectionResponse, readJwt } from '../../suites/checks/index.ts';

function response(status: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  const text = JSON.stringify(body);
  const h = new Headers(headers);
  return {
    status,
    url: 'https://idp.test/x',
    headers: h,
    text,
    json: body,
    body: body && typeof body === 'object' ? (body as Record<string, unknown>) : {},
    header: (n) => h.get(n) ?? undefined,
  };
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const jwt = (payload: unknown) => `${b64({ alg: 'RS256' })}.${b64(payload)}.c2ln`;

describe('checks for presented tokens', () => {
  it('bearerChallenge reads the Bearer challenge and its parameters, quoted or not, among other challenges', () => {
    expect(
      bearerChallenge(
        response(
          401,
          {},
          { 'www-authenticate': 'Bearer realm="idp", error="invalid_token", error_description="bad, really"' },
        ),
      ),
    ).toEqual({ realm: 'idp', error: 'invalid_token', error_description: 'bad, really' });
    expect(
      bearerChallenge(response(401, {}, { 'www-authenticate': 'DPoP algs="ES256", bearer error=invalid_token' })),
    ).toEqual({ error: 'invalid_token' });
    expect(bearerChallenge(response(401, {}, { 'www-authenticate': 'Bearer' }))).toEqual({});
    expect(bearerChallenge(response(401, {}, { 'www-authenticate': 'Basic realm="x"' }))).toBeUndefined();
    expect(bearerChallenge(response(401, {}))).toBeUndefined();
  });

  it('readJwt tells a JWT from an opaque token', () => {
    expect(readJwt(jwt({ sub: 'u' }))?.payload).toEqual({ sub: 'u' });
    expect(readJwt('opaque-token-value')).toBeUndefined();
    expect(readJwt('a.b.c')).toBeUndefined();
    expect(readJwt(undefined)).toBeUndefined();
  });

  it('expectIntrospectionResponse wants HTTP 200 with a boolean active', () => {
    expect(
      expectIntrospectionResponse(response(200, { active: false }), 'Introspecting x', ref('RFC 7662 §2.2')),
    ).toEqual({ active: false });
    expect(() =>
      expectIntrospectionResponse(response(200, { active: 'true' }), 'Introspecting x', ref('RFC 7662 §2.2')),
    ).toThrow(CheckFailure);
    expect(() =>
      expectIntrospectionResponse(response(400, { error: 'invalid_request' }), 'Introspecting x', ref('RFC 7662 §2.2')),
    ).toThrow(
      'Introspecting x got HTTP 400 with error=invalid_request; RFC 7662 §2.2 requires HTTP 200 with a JSON object ' +
        'whose "active" is a boolean.',
    );
  });
});
