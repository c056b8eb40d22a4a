import { describe, expect, it } from 'vitest';
import { CheckFailure } from '../../harness/model/failures.ts';
import type { HttpResponse } from '../../harness/http/client.ts';
import type { FailureKind } from '../../harness/model/results.ts';
import { ref } from '../support/requirements.ts';
import {
  expectBearer,
  expectHeader,
  expectNoField,
  expectOAuthError,
  expectStatus,
  expectTokenResponse,
  withOpenid,
} from '../../suites/checks/index.ts';

function response(status: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const json = typeof body === 'string' ? undefined : body;
  const h = new Headers(headers);
  return {
    status,
    url: 'https://idp.test/token',
    headers: h,
    text,
    json,
    body: json && typeof json === 'object' ? (json as Record<string, unknown>) : {},
    header: (n) => h.get(n) ?? undefined,
  };
}

const rule = { when: 'A token request with a wrong code_verifier', per: ref('RFC 7636 §4.6') };
const failure = (f: () => unknown): CheckFailure => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(CheckFailure);
    expect((e as CheckFailure).requirement).toBe(rule.per);
    return e as CheckFailure;
  }
  throw new Error('expected a CheckFailure');
};
const message = (f: () => unknown) => failure(f).message;
const kind = (f: () => unknown): FailureKind => failure(f).kind;

describe('checks', () => {
  it('expectOAuthError accepts the named error and fails on tokens, other errors, or 2xx', () => {
    expect(expectOAuthError(response(400, { error: 'invalid_grant' }), 'invalid_grant', rule)).toBe('invalid_grant');
    expect(
      message(() =>
        expectOAuthError(response(200, { access_token: 'x', token_type: 'Bearer' }), 'invalid_grant', rule),
      ),
    ).toBe(
      'A token request with a wrong code_verifier got HTTP 200 with an access_token; RFC 7636 §4.6 requires an ' +
        'error response with error=invalid_grant.',
    );
    expect(
      message(() =>
        expectOAuthError(response(400, { error: 'invalid_request' }), ['invalid_grant', 'invalid_client'], rule),
      ),
    ).toMatch(/got HTTP 400 with error=invalid_request; .* error=invalid_grant or error=invalid_client\.$/);
    expect(message(() => expectOAuthError(response(500, '<html>oops</html>'), 'invalid_grant', rule))).toMatch(
      /HTTP 500 with a non-JSON body/,
    );
  });

  it('a failure says how the target failed: the bad request accepted (security) or refused wrongly (interop)', () => {
    // The bad request succeeded: a security failure.
    expect(
      kind(() => expectOAuthError(response(200, { access_token: 'x', token_type: 'Bearer' }), 'invalid_grant', rule)),
    ).toBe('accepted');
    expect(kind(() => expectOAuthError(response(400, { access_token: 'x' }), 'invalid_grant', rule))).toBe('accepted');
    expect(kind(() => expectNoField({ refresh_token: 'r' }, 'refresh_token', rule))).toBe('accepted');
    // Refused, but with the wrong code or body: an interoperability failure.
    expect(kind(() => expectOAuthError(response(400, { error: 'invalid_request' }), 'invalid_grant', rule))).toBe(
      'refused-wrongly',
    );
    expect(kind(() => expectOAuthError(response(500, '<html>oops</html>'), 'invalid_grant', rule))).toBe(
      'refused-wrongly',
    );
    expect(kind(() => expectTokenResponse(response(401, { error: 'invalid_client' }), rule))).toBe('refused-wrongly');
    expect(kind(() => expectStatus(response(404, {}), 200, rule))).toBe('refused-wrongly');
    // The rule may say otherwise.
    expect(kind(() => expectStatus(response(200, {}), 401, { ...rule, kind: 'accepted' }))).toBe('accepted');
  });

  it('expectTokenResponse and expectBearer', () => {
    const tokens = expectTokenResponse(response(200, { access_token: 'a', token_type: 'bearer' }), rule);
    expectBearer(tokens, rule);
    expect(message(() => expectBearer({ ...tokens, token_type: 'mac' }, rule))).toMatch(/token_type "mac"/);
    expect(message(() => expectTokenResponse(response(401, { error: 'invalid_client' }), rule))).toMatch(
      /HTTP 401 with error=invalid_client; .* requires HTTP 200 with an access_token/,
    );
    // token_type is token.response-format's rule (issue 27 item 3): another scenario takes tokens without it.
    const untyped = expectTokenResponse(response(200, { access_token: 'a' }), rule);
    expect(untyped.access_token).toBe('a');
    expect(() => expectBearer(untyped, rule)).not.toThrow();
  });

  it('expectStatus, expectNoField, expectHeader; withOpenid', () => {
    expectStatus(response(401, {}), [400, 401], rule);
    expect(message(() => expectStatus(response(200, {}), 400, rule))).toMatch(/requires HTTP 400\.$/);
    expectNoField({ access_token: 'a' }, 'refresh_token', rule);
    expect(message(() => expectNoField({ refresh_token: 'r' }, 'refresh_token', rule))).toMatch(
      /returned a refresh_token; RFC 7636 §4\.6 requires that it does not/,
    );
    const want = { ...rule, want: 'Cache-Control: no-store' };
    expect(expectHeader(response(200, {}, { 'cache-control': 'no-store' }), 'cache-control', /no-store/, want)).toBe(
      'no-store',
    );
    expect(message(() => expectHeader(response(200, {}), 'cache-control', /no-store/, want))).toMatch(
      /answered without cache-control; .* requires Cache-Control: no-store/,
    );
    expect(withOpenid('profile email')).toBe('openid profile email');
    expect(withOpenid('email openid')).toBe('email openid');
  });
});
