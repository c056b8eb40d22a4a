import { describe, expect, it } from 'vitest';
import {
  MAX_CHALLENGES,
  MAX_HEADER_CHARS,
  challengeOf,
  parseWwwAuthenticate,
} from '../../protocol/www-authenticate.ts';
import {
  isLoopbackUrl,
  protectedResourceMetadataUrl,
  rootProtectedResourceMetadataUrl,
} from '../../protocol/protected-resource.ts';

describe('parseWwwAuthenticate (RFC 9110 §11.6.1)', () => {
  it('reads a Bearer challenge with quoted and token params (RFC 9728 §5.1)', () => {
    const parsed = parseWwwAuthenticate(
      'Bearer resource_metadata="https://mcp.example/.well-known/oauth-protected-resource/mcp", scope=read',
    );
    expect(parsed).toEqual({
      challenges: [
        {
          scheme: 'Bearer',
          params: { resource_metadata: 'https://mcp.example/.well-known/oauth-protected-resource/mcp', scope: 'read' },
        },
      ],
      truncated: false,
    });
  });

  it('tells challenges apart where commas separate both challenges and params', () => {
    const parsed = parseWwwAuthenticate('Basic realm="a, b", Bearer error="invalid_token", REALM=x,DPoP algs="ES256"');
    expect(parsed.challenges.map((c) => c.scheme)).toEqual(['Basic', 'Bearer', 'DPoP']);
    expect(challengeOf(parsed, 'bearer')?.params).toEqual({ error: 'invalid_token', realm: 'x' });
    expect(challengeOf(parsed, 'Basic')?.params).toEqual({ realm: 'a, b' });
  });

  it('reads a token68, a bare scheme, escapes, and keeps the first of a repeated param', () => {
    const parsed = parseWwwAuthenticate('Negotiate abc+/=, Bearer, Bearer realm="q\\"x", realm=second');
    expect(parsed.challenges).toEqual([
      { scheme: 'Negotiate', params: {}, token68: 'abc+/=' },
      { scheme: 'Bearer', params: {} },
      { scheme: 'Bearer', params: { realm: 'q"x' } },
    ]);
    expect(parsed.truncated).toBe(false);
  });

  it('stops at what is not of the grammar, and reads within its bounds', () => {
    expect(parseWwwAuthenticate('Bearer realm="never closed')).toEqual({
      challenges: [{ scheme: 'Bearer', params: {} }],
      truncated: true,
    });
    expect(parseWwwAuthenticate(undefined)).toEqual({ challenges: [], truncated: false });
    expect(parseWwwAuthenticate('<html>').truncated).toBe(true);
    const many = parseWwwAuthenticate(Array.from({ length: 40 }, (_, i) => `S${i}`).join(', '));
    expect(many.challenges).toHaveLength(MAX_CHALLENGES);
    expect(many.truncated).toBe(true);
    const long = parseWwwAuthenticate(`Bearer realm="${'x'.repeat(MAX_HEADER_CHARS)}"`);
    expect(long.truncated).toBe(true);
  });
});

describe('the protected resource metadata URL (RFC 9728 §3.1)', () => {
  it('inserts the well-known suffix between the host and the path and query', () => {
    expect(protectedResourceMetadataUrl('https://mcp.example/mcp')).toBe(
      'https://mcp.example/.well-known/oauth-protected-resource/mcp',
    );
    expect(protectedResourceMetadataUrl('https://mcp.example/')).toBe(
      'https://mcp.example/.well-known/oauth-protected-resource',
    );
    expect(protectedResourceMetadataUrl('https://mcp.example:8443/a/b?t=1')).toBe(
      'https://mcp.example:8443/.well-known/oauth-protected-resource/a/b?t=1',
    );
    expect(rootProtectedResourceMetadataUrl('https://mcp.example/a/b')).toBe(
      'https://mcp.example/.well-known/oauth-protected-resource',
    );
    expect(protectedResourceMetadataUrl('https://mcp.example/mcp#f')).toBeUndefined();
    expect(protectedResourceMetadataUrl('urn:x')).toBeUndefined();
  });

  it('knows loopback hosts', () => {
    expect(
      ['http://127.0.0.1:9/cb', 'http://localhost/cb', 'http://[::1]:80/', 'http://127.1.2.3/'].map(isLoopbackUrl),
    ).toEqual([true, true, true, true]);
    expect(['http://app.example/cb', 'http://127.0.0.1.example/', 'not a url'].map(isLoopbackUrl)).toEqual([
      false,
      false,
      false,
    ]);
  });
});
