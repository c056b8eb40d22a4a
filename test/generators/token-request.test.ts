import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MALFORMED_TOKEN_REQUEST_KINDS,
  encodeTokenRequest,
  malformedTokenRequest,
  type MalformedTokenRequest,
  type TokenRequestEncoding,
} from '../../generators/token-request.ts';

const SEED = 6749;
const BASES: Record<string, Record<string, string>> = {
  authorization_code: {
    grant_type: 'authorization_code',
    code: 'SplxlOBeZQQYbYS6WxSbIA',
    redirect_uri: 'https://client.example/cb',
    code_verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
    client_id: 'web',
  },
  client_credentials: { grant_type: 'client_credentials', scope: 'api:read api:write' },
  refresh_token: { grant_type: 'refresh_token', refresh_token: 'tGzv3JOkF0XG5Qx2TlKWIA', scope: 'openid' },
};
// Independent of the generator's tables (RFC 6749 §4.1.3, §4.4.2, §6; RFC 7636 §4.5).
const REQUIRED: Record<string, string[]> = {
  authorization_code: ['grant_type', 'code', 'redirect_uri', 'code_verifier'],
  client_credentials: ['grant_type'],
  refresh_token: ['grant_type', 'refresh_token'],
};
const KNOWN = new Set([
  'authorization_code',
  'client_credentials',
  'refresh_token',
  'password',
  'urn:ietf:params:oauth:grant-type:device_code',
  'urn:ietf:params:oauth:grant-type:token-exchange',
  'urn:ietf:params:oauth:grant-type:jwt-bearer',
]);
const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';
const MiB = 1024 * 1024;

const rawPairs = (body: string) =>
  body.split('&').map((pair) => {
    const at = pair.indexOf('=');
    return at < 0 ? [pair, ''] : [pair.slice(0, at), pair.slice(at + 1)];
  });
const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
const formEntries = (body: string) => rawPairs(body).map(([k, v]) => [decode(k!), decode(v!)] as [string, string]);
function jsonObject(body: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
const mediaType = (contentType: string | undefined) => contentType?.split(';')[0]?.trim().toLowerCase();
/** The request's parameters as the target would read them in its encoding. */
const params = (body: string, encoding: TokenRequestEncoding) =>
  encoding === 'json' ? (jsonObject(body) ?? {}) : Object.fromEntries(formEntries(body));
/** Which keys of `base` differ in `got` (absent, changed, or of another type). */
const changedKeys = (got: Record<string, unknown>, base: Record<string, string>) =>
  [...new Set([...Object.keys(base), ...Object.keys(got)])].filter((k) => got[k] !== base[k]);

function isKind(m: MalformedTokenRequest, base: Record<string, string>, encoding: TokenRequestEncoding): boolean {
  const body = typeof m.body === 'string' ? m.body : undefined;
  const ownType = encoding === 'json' ? JSON_TYPE : FORM;
  const grant = base.grant_type ?? '';
  switch (m.kind) {
    case 'wrong-type': {
      if (body === undefined) return false;
      if (encoding === 'json') {
        const changed = changedKeys(jsonObject(body) ?? {}, base);
        return (
          m.contentType === JSON_TYPE && changed.length === 1 && typeof jsonObject(body)?.[changed[0]!] !== 'string'
        );
      }
      const bracketed = rawPairs(body)
        .map(([k]) => /^([a-z_]+)\[[^\]]*\]$/.exec(k!)?.[1])
        .filter((k) => k !== undefined);
      return (
        m.contentType === FORM &&
        bracketed.length === 1 &&
        bracketed[0]! in base &&
        !(bracketed[0]! in params(body, 'form'))
      );
    }
    case 'duplicate-param': {
      if (body === undefined || m.contentType !== ownType) return false;
      const names =
        encoding === 'json' ? [...body.matchAll(/"([a-z_]+)":/g)].map((x) => x[1]) : formEntries(body).map(([k]) => k);
      return new Set(names).size < names.length;
    }
    case 'missing-param': {
      if (body === undefined || m.contentType !== ownType) return false;
      const changed = changedKeys(params(body, encoding), base);
      return changed.length === 1 && REQUIRED[grant]!.includes(changed[0]!) && !params(body, encoding)[changed[0]!];
    }
    case 'unknown-grant-type': {
      if (body === undefined || m.contentType !== ownType) return false;
      const got = params(body, encoding);
      return (
        changedKeys(got, base).join() === 'grant_type' &&
        typeof got.grant_type === 'string' &&
        !KNOWN.has(got.grant_type)
      );
    }
    case 'wrong-content-type': {
      if (body === undefined) return false;
      const bodyType = body.startsWith('--') ? 'multipart/form-data' : jsonObject(body) ? JSON_TYPE : FORM;
      const sameParams =
        bodyType === 'multipart/form-data'
          ? Object.keys(base).every((k) => body.includes(`name="${k}"`))
          : changedKeys(params(body, bodyType === JSON_TYPE ? 'json' : 'form'), base).length === 0;
      const type = mediaType(m.contentType);
      return sameParams && (type === undefined || type !== bodyType || ![FORM, JSON_TYPE].includes(type));
    }
    case 'broken-json':
      return body !== undefined && m.contentType === JSON_TYPE && jsonObject(body) === undefined;
    case 'broken-percent-encoding':
      return (
        body !== undefined &&
        m.contentType === FORM &&
        rawPairs(body).some(([k, v]) => {
          try {
            decode(k!);
            decode(v!);
            return false;
          } catch {
            return true;
          }
        })
      );
    case 'huge-body':
      return m.contentType === ownType && Buffer.byteLength(m.body) > MiB && Buffer.byteLength(m.body) <= 2 * MiB;
    case 'non-utf8':
      if (!Buffer.isBuffer(m.body) || m.contentType !== ownType) return false;
      try {
        new TextDecoder('utf-8', { fatal: true }).decode(m.body);
        return false;
      } catch {
        return true;
      }
  }
}

describe.each(['form', 'json'] as const)('malformedTokenRequest (%s)', (encoding) => {
  it.each(Object.keys(BASES))('%s: every request is malformed the way it claims, and every kind appears', (grant) => {
    const base = BASES[grant]!;
    const requests = fc.sample(malformedTokenRequest(base, { encoding }), { seed: SEED, numRuns: 600 });
    for (const m of requests) {
      expect(isKind(m, base, encoding), `${m.kind} / ${m.variant}: ${String(m.body).slice(0, 200)}`).toBe(true);
      if (m.kind !== 'huge-body') expect(Buffer.byteLength(m.body)).toBeLessThan(4096);
    }
    const counts = new Map<string, number>();
    for (const m of requests) counts.set(m.kind, (counts.get(m.kind) ?? 0) + 1);
    expect([...counts.keys()].sort()).toEqual([...MALFORMED_TOKEN_REQUEST_KINDS].sort());
    expect(counts.get('huge-body')!).toBeLessThan(requests.length / 15); // rare
  });

  it('encodes the valid base request so that it parses back to itself', () => {
    const { contentType, body } = encodeTokenRequest(BASES.authorization_code!, encoding);
    expect(mediaType(contentType)).toBe(encoding === 'json' ? JSON_TYPE : FORM);
    expect(params(String(body), encoding)).toEqual(BASES.authorization_code);
  });
});

describe('malformedTokenRequest options', () => {
  it('keeps huge bodies within the given bounds', () => {
    const hugeBytes = { min: 10_000, max: 20_000 };
    const requests = fc.sample(malformedTokenRequest(BASES.client_credentials!, { kinds: ['huge-body'], hugeBytes }), {
      seed: SEED,
      numRuns: 50,
    });
    for (const m of requests) expect(Buffer.byteLength(m.body)).toBeGreaterThanOrEqual(hugeBytes.min);
    for (const m of requests) expect(Buffer.byteLength(m.body)).toBeLessThanOrEqual(hugeBytes.max);
  });

  it('takes the required parameters from the caller when given', () => {
    const requests = fc.sample(
      malformedTokenRequest(BASES.authorization_code!, { kinds: ['missing-param'], required: ['client_id'] }),
      { seed: SEED, numRuns: 30 },
    );
    expect(new Set(requests.map((m) => m.description.split(' ')[1]))).toEqual(new Set(['client_id']));
  });

  it('is deterministic under a seed and needs a grant_type', () => {
    const draw = () => fc.sample(malformedTokenRequest(BASES.refresh_token!), { seed: SEED, numRuns: 100 });
    expect(draw()).toEqual(draw());
    expect(() => malformedTokenRequest({ code: 'x' })).toThrow(/grant_type/);
  });
});
