import { describe, expect, it } from 'vitest';
import { PreconditionError } from '../../harness/model/failures.ts';
import type { AuthorizeResult } from '../../harness/scenario/scenario.ts';
import { authorizationAnswer, refusalOf } from '../../suites/checks/index.ts';

const request = { client_id: 'web', redirect_uri: 'https://app.test/cb' };
const redirect = (params: Record<string, string>): AuthorizeResult => ({
  kind: 'redirect',
  url: 'https://app.test/cb',
  params,
  pages: ['login'],
  request,
});
const page = (over: Partial<Extract<AuthorizeResult, { kind: 'page' }>>): AuthorizeResult => ({
  kind: 'page',
  status: 200,
  url: 'https://idp.test/auth',
  body: '',
  headline: 'Oops',
  reason: 'a page without a form (HTTP 200)',
  pages: [],
  request,
  ...over,
});

describe('authorizationAnswer', () => {
  it('reads a code, an error redirect and an error page', () => {
    expect(authorizationAnswer(redirect({ code: 'c', state: 's' }), 'x')).toEqual({ kind: 'code', code: 'c' });
    expect(
      authorizationAnswer(redirect({ error: 'invalid_request', error_description: 'PKCE required' }), 'x'),
    ).toEqual({ kind: 'refused', how: 'redirected with error=invalid_request (PKCE required)' });
    expect(authorizationAnswer(page({ status: 400, pages: ['login'] }), 'x')).toEqual({
      kind: 'refused',
      how: 'showed an error page (HTTP 400 "Oops")',
    });
    expect(authorizationAnswer(page({}), 'x')).toEqual({
      kind: 'refused',
      how: 'showed an error page (HTTP 200 "Oops")',
    });
  });

  it('reads a page after the login that asks for nothing (any status, no error class) as a refusal', () => {
    const plain = page({ pages: ['login'], headline: 'An error has occurred', asksNothing: true });
    expect(authorizationAnswer(plain, 'x')).toEqual({
      kind: 'refused',
      how: 'ended on a page that asks for nothing (HTTP 200 "An error has occurred"): no code, nothing redirected',
    });
    expect(refusalOf(plain)).toBe(
      'ended on a page that asks for nothing (HTTP 200 "An error has occurred"): no code, nothing redirected',
    );
    expect(refusalOf(redirect({ error: 'invalid_scope' }))).toBe('redirected with error=invalid_scope');
    // The same page, but the walk left the IdP, or was told not to sign in: no refusal.
    expect(refusalOf({ ...plain, location: 'https://other.test/' } as AuthorizeResult)).toBeUndefined();
    expect(refusalOf({ ...plain, signInPage: true, pages: [] } as AuthorizeResult)).toBeUndefined();
    // A page after the login that still offers something to do: the walk stopped for a reason of its own.
    expect(refusalOf(page({ pages: ['login'], reason: 'a page with controls the driver does not recognize' }))).toBe(
      undefined,
    );
  });

  it(
    'cannot tell from a login that did not finish, a redirect without code or error, or a redirect ' + 'off the IdP',
    () => {
      const stuck = page({ pages: ['login'], reason: 'the login form came back after the credentials were submitted' });
      expect(() => authorizationAnswer(stuck, 'The request')).toThrow(PreconditionError);
      expect(() => authorizationAnswer(stuck, 'The request')).toThrow(
        /^The request stopped at https:\/\/idp\.test\/auth .*: neither a code nor a refusal$/,
      );
      expect(() => authorizationAnswer(redirect({ state: 's' }), 'x')).toThrow(/redirected without a code/);
      expect(() => authorizationAnswer(page({ status: 302, location: 'https://other.test/' }), 'x')).toThrow(
        PreconditionError,
      );
    },
  );
});
