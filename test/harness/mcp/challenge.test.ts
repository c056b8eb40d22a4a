import { describe, expect, it } from 'vitest';
import { MAX_HEADER_LENGTH, MAX_PARAMS, bearerParam, parseChallenges } from '../../../harness/target/challenge.ts';

describe('WWW-Authenticate challenges (RFC 9110 §11.6.1)', () => {
  it('reads a Bearer challenge with quoted and token params, names and scheme case-insensitively', () => {
    const header =
      'BEARER Resource_Metadata="https://mcp.example/.well-known/oauth-protected-resource/mcp", scope=files';
    expect(parseChallenges(header)).toEqual([
      {
        scheme: 'bearer',
        params: { resource_metadata: 'https://mcp.example/.well-known/oauth-protected-resource/mcp', scope: 'files' },
      },
    ]);
  });

  it('reads several challenges in one value, a token68 among them', () => {
    const header = 'Basic realm="a, b", DPoP algs="ES256 PS256", Negotiate abc123==, Bearer error="invalid_token"';
    const got = parseChallenges(header);
    expect(got.map((c) => c.scheme)).toEqual(['basic', 'dpop', 'negotiate', 'bearer']);
    expect(got[0]?.params).toEqual({ realm: 'a, b' });
    expect(got[1]?.params).toEqual({ algs: 'ES256 PS256' });
    expect(got[2]?.token68).toBe('abc123==');
    expect(bearerParam(header, 'error')).toBe('invalid_token');
  });

  it('unescapes quoted-pairs and keeps the first of a repeated parameter', () => {
    const [c] = parseChallenges('Bearer realm="say \\"hi\\"", realm="second"');
    expect(c?.params.realm).toBe('say "hi"');
    expect(c?.repeated).toEqual(['realm']);
  });

  it('a scheme without params, then another challenge', () => {
    expect(parseChallenges('Basic, Bearer resource_metadata="x"').map((c) => [c.scheme, c.params])).toEqual([
      ['basic', {}],
      ['bearer', { resource_metadata: 'x' }],
    ]);
  });

  it('stops at what does not parse, keeping what came before', () => {
    expect(parseChallenges('Bearer a="unterminated')).toEqual([{ scheme: 'bearer', params: {} }]);
    expect(parseChallenges('')).toEqual([]);
    expect(parseChallenges('"quoted-first"')).toEqual([]);
    expect(bearerParam(undefined, 'resource_metadata')).toBeUndefined();
    expect(bearerParam('Basic realm="x"', 'realm')).toBeUndefined();
  });

  it('is bounded: the header is read up to MAX_HEADER_LENGTH, at most MAX_PARAMS parameters kept', () => {
    const many = `Bearer ${Array.from({ length: 200 }, (_, i) => `p${i}=v`).join(', ')}`;
    const [c] = parseChallenges(many);
    expect(Object.keys(c?.params ?? {})).toHaveLength(MAX_PARAMS);
    const long = `Bearer a="${'x'.repeat(MAX_HEADER_LENGTH * 4)}", resource_metadata="late"`;
    expect(bearerParam(long, 'resource_metadata')).toBeUndefined();
  });
});
