/** The challenge MCP discovery reads (protocol/www-authenticate.ts's bearerParam): the cases a real server sends. */
import { describe, expect, it } from 'vitest';
import { MAX_HEADER_CHARS, bearerParam, parseWwwAuthenticate } from '../../../protocol/www-authenticate.ts';

describe('the Bearer challenge of a 401 (RFC 9110 §11.6.1, RFC 9728 §5.1)', () => {
  it('reads resource_metadata with names and scheme case-insensitively', () => {
    const header =
      'BEARER Resource_Metadata="https://mcp.example/.well-known/oauth-protected-resource/mcp", scope=files';
    expect(bearerParam(header, 'resource_metadata')).toBe(
      'https://mcp.example/.well-known/oauth-protected-resource/mcp',
    );
    expect(bearerParam(header, 'scope')).toBe('files');
  });

  it('finds the Bearer challenge among several, a token68 among them', () => {
    const header = 'Basic realm="a, b", DPoP algs="ES256 PS256", Negotiate abc123==, Bearer error="invalid_token"';
    expect(bearerParam(header, 'error')).toBe('invalid_token');
    expect(parseWwwAuthenticate(header).challenges.map((c) => c.scheme.toLowerCase())).toEqual([
      'basic',
      'dpop',
      'negotiate',
      'bearer',
    ]);
  });

  it('unescapes quoted-pairs', () => {
    expect(bearerParam('Bearer realm="say \\"hi\\""', 'realm')).toBe('say "hi"');
  });

  it('nothing where there is no Bearer challenge or no header, and no throw on what does not parse', () => {
    expect(bearerParam(undefined, 'resource_metadata')).toBeUndefined();
    expect(bearerParam('Basic realm="x"', 'realm')).toBeUndefined();
    expect(bearerParam('Bearer a="unterminated', 'a')).toBeUndefined();
    expect(bearerParam('"quoted-first"', 'a')).toBeUndefined();
  });

  it('is bounded: nothing past MAX_HEADER_CHARS is read', () => {
    const long = `Bearer a="${'x'.repeat(MAX_HEADER_CHARS * 4)}", resource_metadata="late"`;
    expect(bearerParam(long, 'resource_metadata')).toBeUndefined();
  });
});
