/**
 * What the target is (issue 27 item 1): an OpenID provider or an OAuth 2.0 authorization server, from the config's
 * protocol, the metadata found (either well-known path) and, where the metadata does not say, a code flow.
 */
import { describe, expect, it } from 'vitest';
import { kindSkip } from '../../harness/run/gating.ts';
import { defineScenario } from '../../harness/scenario/scenario.ts';
import { rfc8414UrlsOf } from '../../harness/target/discovery.ts';
import { kindOf, metadataKindOf, targetFromDiscovery } from '../../harness/target/target.ts';

const issuer = 'https://as.test';
const rfc8414 = `${issuer}/.well-known/oauth-authorization-server`;
const oidc = `${issuer}/.well-known/openid-configuration`;

describe('the target kind', () => {
  it('the config states it outright', () => {
    expect(kindOf('oauth2', oidc, { issuer, scopes_supported: ['openid'] }, 'oidc-discovery')).toEqual({
      protocol: 'oauth2',
      why: 'the target config says "protocol": "oauth2"',
      by: 'config',
    });
    expect(kindOf('oidc', rfc8414, { issuer }, 'rfc8414').protocol).toBe('oidc');
  });

  it('RFC 8414 metadata without openid among scopes_supported is an OAuth 2.0 authorization server', () => {
    const k = kindOf(undefined, rfc8414, { issuer, scopes_supported: ['read', 'write'] }, 'rfc8414');
    expect(k).toEqual({
      protocol: 'oauth2',
      why: `RFC 8414 metadata at ${rfc8414}, no openid among scopes_supported`,
      by: 'metadata',
    });
  });

  it('openid among the scopes or an OP-only field makes it an OpenID provider, at either path', () => {
    expect(kindOf(undefined, rfc8414, { issuer, scopes_supported: ['openid'] }, 'rfc8414')).toMatchObject({
      protocol: 'oidc',
      by: 'metadata',
    });
    expect(kindOf(undefined, oidc, { issuer, subject_types_supported: ['public'] }, 'oidc-discovery')).toMatchObject({
      protocol: 'oidc',
      why: expect.stringContaining('subject_types_supported'),
    });
  });

  it('metadata that says neither leaves a guess for the code flow to settle', () => {
    expect(kindOf(undefined, rfc8414, { issuer }, 'rfc8414')).toMatchObject({ protocol: 'oauth2', by: 'guess' });
    expect(kindOf(undefined, oidc, { issuer }, 'oidc-discovery')).toMatchObject({ protocol: 'oidc', by: 'guess' });
    expect(kindOf(undefined, oidc, null, undefined)).toMatchObject({ protocol: 'oidc', by: 'guess' });
  });

  it('RFC 8414 §3.1 inserts the well-known suffix before the issuer path; the appended form is tried too', () => {
    expect(rfc8414UrlsOf('https://as.test')).toEqual(['https://as.test/.well-known/oauth-authorization-server']);
    expect(rfc8414UrlsOf('https://as.test/tenant/')).toEqual([
      'https://as.test/.well-known/oauth-authorization-server/tenant',
      'https://as.test/tenant/.well-known/oauth-authorization-server',
    ]);
    expect(metadataKindOf(rfc8414)).toBe('rfc8414');
    expect(metadataKindOf(oidc)).toBe('oidc-discovery');
    expect(metadataKindOf('https://as.test/meta.json')).toBeUndefined();
  });

  it('an OIDC-only scenario is skipped with the reason on an OAuth 2.0 authorization server, and only there', () => {
    const define = (id: string, appliesTo: 'oauth2' | 'oidc') =>
      defineScenario({
        id,
        title: 't',
        appliesTo,
        severity: 'low',
        requirements: { r: { spec: 'OIDC Core', section: '3.1', level: 'MUST', party: 'server' } },
        run: () => undefined,
      });
    const oidcOnly = define('x.oidc-only', 'oidc');
    const oauth = define('x.oauth', 'oauth2');
    const as = targetFromDiscovery(issuer, rfc8414, { issuer, scopes_supported: ['read'] });
    const op = targetFromDiscovery(issuer, oidc, { issuer, scopes_supported: ['openid'] });
    expect(kindSkip(oidcOnly, as)).toBe(
      `an OAuth 2.0 authorization server (RFC 8414 metadata at ${rfc8414}, no openid among scopes_supported): ` +
        'OIDC Core does not apply',
    );
    expect(kindSkip(oauth, as)).toBeUndefined();
    expect(kindSkip(oidcOnly, op)).toBeUndefined();
  });
});
