/** The checks the refresh, scope, token and header scenarios share: framing, granted scope, offline scope. */
import { describe, expect, it } from 'vitest';
import { ref } from '../support/requirements.ts';
import { CheckFailure } from '../../harness/model/failures.ts';
import type { HttpResponse } from '../../harness/http/client.ts';
import { decodeJwt } from '../../harness/flows/jwt.ts';
import { targetFromDiscovery } from '../../harness/target/target.ts';
import {
  escalatingScopes,
  expectFramingForbidden,
  expectScopesWithheld,
  framingVerdict,
  grantedScopes,
  offlineScope,
} from '../../suites/checks/index.ts';

function response(status: number, body: Record<string, unknown>): HttpResponse {
  const headers = new Headers({ 'content-type': 'application/json' });
  return {
    status,
    url: 'https://idp.test/token',
    headers,
    text: JSON.stringify(body),
    json: body,
    body,
    header: (n) => headers.get(n) ?? undefined,
  };
}

const jwt = { decode: decodeJwt };
const unsignedJwt = (claims: Record<string, unknown>) =>
  `${Buffer.from('{"alg":"RS256"}').toString('base64url')}.` +
  `${Buffer.from(JSON.stringify(claims)).toString('base64url')}.sig`;
const message = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(CheckFailure);
    return (e as Error).message;
  }
  throw new Error('expected a CheckFailure');
};

describe('framing protection (RFC 9700 §4.16)', () => {
  it('accepts X-Frame-Options DENY/SAMEORIGIN and a frame-ancestors without wildcards', () => {
    expect(framingVerdict({ 'x-frame-options': 'DENY' })).toEqual({
      forbidden: true,
      because: 'X-Frame-Options: DENY',
    });
    expect(framingVerdict(new Headers({ 'X-Frame-Options': 'sameorigin' })).forbidden).toBe(true);
    expect(framingVerdict({ 'content-security-policy': "default-src 'none'; frame-ancestors 'none'" }).forbidden).toBe(
      true,
    );
    expect(
      framingVerdict({ 'content-security-policy': "frame-ancestors 'self' https://portal.example" }).forbidden,
    ).toBe(true);
    // an empty list is 'none'
    expect(framingVerdict({ 'content-security-policy': 'frame-ancestors' }).forbidden).toBe(true);
    // Two enforced policies: the restrictive one wins.
    expect(framingVerdict({ 'content-security-policy': "frame-ancestors *, frame-ancestors 'self'" }).forbidden).toBe(
      true,
    );
  });

  it('refuses no headers, ALLOW-FROM, and a permissive frame-ancestors even next to X-Frame-Options', () => {
    expect(framingVerdict({})).toEqual({ forbidden: false, because: 'no X-Frame-Options and no CSP frame-ancestors' });
    expect(framingVerdict({ 'x-frame-options': 'ALLOW-FROM https://a.example' }).forbidden).toBe(false);
    expect(
      framingVerdict({ 'x-frame-options': 'DENY', 'content-security-policy': 'frame-ancestors *' }).forbidden,
    ).toBe(false);
    expect(framingVerdict({ 'content-security-policy': "frame-ancestors 'self' https:" }).forbidden).toBe(false);
    expect(framingVerdict({ 'content-security-policy': "default-src 'self'" }).forbidden).toBe(false);
    expect(
      message(() =>
        expectFramingForbidden(
          { name: 'login page', url: 'https://idp.test/login', headers: {} },
          { per: ref('RFC 9700 §4.16') },
        ),
      ),
    ).toBe(
      'The login page at https://idp.test/login was served with no X-Frame-Options and no CSP frame-ancestors; RFC ' +
        '9700 §4.16 requires the authorization server to prevent clickjacking (X-Frame-Options DENY or SAMEORIGIN, ' +
        'or CSP frame-ancestors).',
    );
  });
});

describe('granted scope', () => {
  const rule = { when: 'A request for api:write', per: ref('SPEC › Errors (rule 4)') };

  it('reads the response scope, the JWT scope or scp claim, and otherwise takes the request (RFC 6749 §5.1)', () => {
    const requested = ['api:read', 'api:write'];
    expect(
      grantedScopes({ access_token: 'opaque', token_type: 'Bearer', scope: 'api:read' }, requested, jwt).map(
        (g) => g.scopes,
      ),
    ).toEqual([['api:read']]);
    expect(
      grantedScopes(
        { access_token: unsignedJwt({ scp: ['api:read', 'api:write'] }), token_type: 'Bearer' },
        requested,
        jwt,
      ),
    ).toEqual([
      { source: 'the access token\'s scp claim ["api:read","api:write"]', scopes: ['api:read', 'api:write'] },
    ]);
    expect(grantedScopes({ access_token: 'opaque', token_type: 'Bearer' }, requested, jwt)[0]!.scopes).toEqual(
      requested,
    );
  });

  it(
    'expectScopesWithheld: invalid_scope or a narrowed grant pass; the extra scope anywhere, or another ' +
      'error, fails',
    () => {
      expect(
        expectScopesWithheld(
          response(400, { error: 'invalid_scope' }),
          ['api:write'],
          ['api:read', 'api:write'],
          jwt,
          rule,
        ),
      ).toBe('error');
      expect(
        expectScopesWithheld(
          response(200, { access_token: 'a', token_type: 'Bearer', scope: 'api:read' }),
          ['api:write'],
          ['api:read', 'api:write'],
          jwt,
          rule,
        ),
      ).toBe('narrowed');
      // The response says narrowed, but the token itself carries the extra scope.
      const token = unsignedJwt({ scope: 'api:read api:write' });
      expect(
        message(() =>
          expectScopesWithheld(
            response(200, { access_token: token, token_type: 'Bearer', scope: 'api:read' }),
            ['api:write'],
            ['api:read', 'api:write'],
            jwt,
            rule,
          ),
        ),
      ).toBe(
        'A request for api:write was granted api:write (the access token\'s scope claim "api:read ' +
          'api:write"); SPEC › ' +
          'Errors (rule 4) requires error=invalid_scope, or a granted scope without it.',
      );
      expect(
        message(() =>
          expectScopesWithheld(
            response(200, { access_token: 'a', token_type: 'Bearer' }),
            ['api:write'],
            ['api:read', 'api:write'],
            jwt,
            rule,
          ),
        ),
      ).toMatch(/granted api:write \(the response names no scope, which RFC 6749 §5\.1 reads as the scope requested\)/);
      expect(
        message(() =>
          expectScopesWithheld(response(400, { error: 'invalid_request' }), ['api:write'], ['api:write'], jwt, rule),
        ),
      ).toMatch(
        new RegExp(
          /got HTTP 400 with error=invalid_request; .* requires error=invalid_scope, /.source +
            /or tokens whose granted scope leaves out api:write\.$/.source,
        ),
      );
    },
  );

  it('escalates only to advertised scopes; offline_access is added with openid only when advertised', () => {
    const target = targetFromDiscovery('https://idp.test', 'https://idp.test/.well-known/openid-configuration', {
      scopes_supported: ['openid', 'offline_access', 'profile', 'api:read', 'api:write'],
    });
    expect(escalatingScopes(target, ['api:read'], ['openid', 'offline_access', 'profile'])).toEqual(['api:write']);
    expect(offlineScope(target, ['profile'])).toEqual(['openid', 'profile', 'offline_access']);
    const bare = targetFromDiscovery('https://idp.test', 'https://idp.test/.well-known/openid-configuration', {});
    expect(escalatingScopes(bare, ['api:read'])).toEqual([]);
    expect(offlineScope(bare, ['openid'])).toEqual(['openid']);
    // An OAuth 2.0 authorization server (RFC 8414 metadata, no openid) that lists offline_access: asked without openid.
    const as = targetFromDiscovery('https://idp.test', 'https://idp.test/.well-known/oauth-authorization-server', {
      scopes_supported: ['read', 'offline_access'],
    });
    expect(as.kind.protocol).toBe('oauth2');
    expect(offlineScope(as, ['read'])).toEqual(['read', 'offline_access']);
  });
});
