import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  NEAR_MISS_KINDS,
  PARSER_CONFUSION_KINDS,
  differingRedirectUris,
  parserConfusions,
  nearMissKindsFor,
  redirectUriNearMiss,
  type NearMissKind,
  type RedirectUriNearMiss,
} from '../../generators/redirect-uri.ts';

const SEED = 20240601;
const REGISTERED = [
  'https://client.example/cb',
  'https://app.example.com:8443/oauth/callback?tenant=a&x=1',
  'http://127.0.0.1:8080/callback',
  'http://[::1]:1234/cb',
  'http://localhost/cb',
  'com.example.app:/oauth2redirect',
  'https://client.example',
];
const RESPONSE_PARAMS = new Set([
  'code',
  'state',
  'iss',
  'error',
  'error_description',
  'access_token',
  'id_token',
  'token_type',
]);

// An independent split of a URI into its raw pieces (not the generator's parser).
function pieces(uri: string) {
  const schemeEnd = uri.indexOf(':');
  const hashAt = uri.indexOf('#');
  const body = hashAt < 0 ? uri : uri.slice(0, hashAt);
  const queryAt = body.indexOf('?');
  const beforeQuery = queryAt < 0 ? body : body.slice(0, queryAt);
  const hasAuthority = beforeQuery.startsWith('//', schemeEnd + 1);
  const authorityEnd = hasAuthority
    ? (beforeQuery.indexOf('/', schemeEnd + 3) + 1 || beforeQuery.length + 1) - 1
    : schemeEnd + 1;
  const authority = hasAuthority ? beforeQuery.slice(schemeEnd + 3, authorityEnd) : undefined;
  const hostPort = authority?.slice(authority.lastIndexOf('@') + 1);
  const portMatch =
    hostPort === undefined
      ? null
      : /:(\d*)$/.exec(hostPort.startsWith('[') ? hostPort.slice(hostPort.indexOf(']')) : hostPort);
  return {
    scheme: uri.slice(0, schemeEnd),
    origin: beforeQuery.slice(0, authorityEnd),
    authority,
    host: portMatch && hostPort ? hostPort.slice(0, hostPort.length - portMatch[0].length) : hostPort,
    port: portMatch?.[1],
    path: beforeQuery.slice(authorityEnd),
    query: queryAt < 0 ? undefined : body.slice(queryAt + 1),
    fragment: hashAt < 0 ? undefined : uri.slice(hashAt + 1),
  };
}
const segments = (path: string) => path.split('/').filter(Boolean);
const names = (query: string | undefined) => [...new URLSearchParams(query ?? '').keys()];
const isSubsequence = (small: string[], big: string[]) => {
  let i = 0;
  for (const s of big) if (s === small[i]) i++;
  return i === small.length;
};
/** Only the case of the characters inside [start, end) differs. */
function onlyCaseDiffersWithin(u: string, r: string, start: number, end: number): boolean {
  if (u.length !== r.length || u.toLowerCase() !== r.toLowerCase()) return false;
  return [...u].every((c, i) => c === r[i] || (i >= start && i < end));
}

/** Is `u` really a near miss of kind `kind` of `r`? */
function isKind(kind: NearMissKind, u: string, r: string): boolean {
  const U = pieces(u);
  const R = pieces(r);
  const samePathAndQuery = U.path === R.path && U.query === R.query && U.fragment === undefined;
  const sameExceptHost =
    U.scheme === R.scheme && U.port === R.port && samePathAndQuery && U.host !== undefined && R.host !== undefined;
  switch (kind) {
    case 'prefix-extension':
      return u.startsWith(r) && u.length > r.length;
    case 'trailing-slash': {
      const strip = (s: string) => s.replace(/\/+(?=\?|$)/, '');
      return strip(u) === strip(r) && U.fragment === undefined;
    }
    case 'extra-path-segment':
      return (
        U.origin === R.origin &&
        U.query === R.query &&
        segments(U.path).length > segments(R.path).length &&
        isSubsequence(segments(R.path), segments(U.path))
      );
    case 'changed-path-segment': {
      const [us, rs] = [segments(U.path), segments(R.path)];
      return (
        U.origin === R.origin &&
        U.query === R.query &&
        us.length === rs.length &&
        us.filter((s, i) => s !== rs[i]).length === 1
      );
    }
    case 'extra-query': {
      const extra = names(U.query).filter((n) => !names(R.query).includes(n));
      return (
        U.origin === R.origin &&
        U.path === R.path &&
        (U.query ?? '').startsWith(R.query ?? '') &&
        extra.length > 0 &&
        extra.every((n) => !RESPONSE_PARAMS.has(n)) &&
        new Set(names(U.query)).size === names(U.query).length
      );
    }
    case 'fragment':
      return U.fragment !== undefined && u.slice(0, u.indexOf('#')) === r;
    case 'scheme-case':
      return onlyCaseDiffersWithin(u, r, 0, R.scheme.length);
    case 'host-case': {
      const start = r.indexOf(R.host ?? '', R.scheme.length);
      return onlyCaseDiffersWithin(u, r, start, start + (R.host ?? '').length);
    }
    case 'path-case':
      return onlyCaseDiffersWithin(u, r, R.origin.length, R.origin.length + R.path.length);
    case 'other-scheme':
      return U.scheme.toLowerCase() !== R.scheme.toLowerCase() && u.slice(U.scheme.length) === r.slice(R.scheme.length);
    case 'other-port':
      return U.host === R.host && U.port !== R.port && samePathAndQuery && !(U.authority ?? '').includes('@');
    case 'userinfo-at': {
      if (!U.authority?.includes('@')) return false;
      const hostname = new URL(u).hostname; // where a browser would go
      return hostname === new URL(r).hostname || hostname === 'attacker.example';
    }
    case 'suffix-host':
      return sameExceptHost && U.host!.startsWith(R.host!) && U.host!.length > R.host!.length;
    case 'subdomain-host':
      return sameExceptHost && U.host!.endsWith(`.${R.host}`);
    case 'prefixed-host':
      return (
        sameExceptHost &&
        U.host!.endsWith(R.host!) &&
        !U.host!.endsWith(`.${R.host}`) &&
        U.host!.length > R.host!.length
      );
    case 'path-traversal':
      return (
        U.origin === R.origin &&
        U.query === R.query &&
        U.path.startsWith(`${R.path.replace(/\/$/, '')}/`) &&
        /(\.|%2e){2}(\/|%2f|;|\\)/i.test(U.path.slice(R.path.length))
      );
    case 'double-encoding':
      return /%25[0-9a-f]{2}/i.test(u) && !/%25/i.test(r) && U.origin === R.origin;
    case 'parameter-pollution': {
      const n = names(U.query);
      return (
        U.origin === R.origin &&
        U.path === R.path &&
        (new Set(n).size < n.length || n.some((x) => RESPONSE_PARAMS.has(x) && !names(R.query).includes(x)))
      );
    }
  }
}

function sample(registered: string, numRuns = 1500, kinds?: NearMissKind[]): RedirectUriNearMiss[] {
  return fc.sample(redirectUriNearMiss(registered, kinds ? { kinds } : {}), { seed: SEED, numRuns });
}

describe('redirectUriNearMiss', () => {
  it.each(REGISTERED)('never produces %s itself and every value is the kind it claims', (registered) => {
    for (const nearMiss of sample(registered)) {
      expect(nearMiss.uri).not.toBe(registered);
      expect({ ...nearMiss, isKind: isKind(nearMiss.kind, nearMiss.uri, registered) }).toMatchObject({ isKind: true });
    }
  });

  it.each(REGISTERED)('produces every kind applicable to %s', (registered) => {
    const seen = new Set(sample(registered).map((n) => n.kind));
    expect([...seen].sort()).toEqual([...nearMissKindsFor(registered)].sort());
  });

  it('has every kind for an ordinary https redirect URI, and all kinds across the registered set', () => {
    expect(nearMissKindsFor('https://client.example/cb')).toEqual([...NEAR_MISS_KINDS]);
    const seen = new Set(REGISTERED.flatMap((r) => sample(r).map((n) => n.kind)));
    expect(seen.size).toBe(NEAR_MISS_KINDS.length);
  });

  it('leaves out kinds that cannot exist for the URI', () => {
    const ip = nearMissKindsFor('http://127.0.0.1:8080/callback');
    expect(ip).not.toContain('host-case'); // no letters: a case change would be the same string
    expect(ip).not.toContain('subdomain-host');
    expect(nearMissKindsFor('https://client.example')).not.toContain('path-case');
    const native = nearMissKindsFor('com.example.app:/oauth2redirect');
    expect(native).not.toContain('other-port');
    expect(native).not.toContain('userinfo-at');
  });

  it('marks browser-equivalent URIs and loopback ports with a caveat, and nothing else', () => {
    for (const registered of REGISTERED) {
      for (const { kind, uri, caveat } of sample(registered, 600)) {
        if (kind === 'scheme-case' || kind === 'host-case') expect(caveat).toBe('same-resource');
        if (
          ['prefix-extension', 'path-case', 'userinfo-at', 'subdomain-host', 'path-traversal', 'fragment'].includes(
            kind,
          )
        ) {
          expect(caveat, uri).toBeUndefined();
        }
        if (caveat === 'loopback-port')
          expect([kind, pieces(registered).host]).toEqual([
            'other-port',
            expect.stringMatching(/^(127\.|\[::1\]|localhost)/),
          ]);
      }
    }
    const otherPorts = sample('http://127.0.0.1:8080/callback', 400, ['other-port']);
    expect(otherPorts.some((n) => n.caveat === 'loopback-port')).toBe(true);
    expect(sample('https://client.example/cb', 400, ['other-port']).some((n) => n.caveat === 'loopback-port')).toBe(
      false,
    );
  });

  it('is deterministic under a seed', () => {
    expect(sample('https://client.example/cb', 200)).toEqual(sample('https://client.example/cb', 200));
  });

  it('refuses a registered URI with a fragment (RFC 6749 §3.1.2) and explains it', () => {
    expect(() => redirectUriNearMiss('https://client.example/cb#x')).toThrow(/fragment/);
  });

  it('shrinks a prefix-extension counterexample to the registered URI plus a short suffix', () => {
    const registered = 'https://client.example/cb';
    const prefixMatchIsExact = fc.property(
      redirectUriNearMiss(registered, { kinds: ['prefix-extension'] }),
      ({ uri }) => uri === registered || !uri.startsWith(registered),
    );
    const details = fc.check(prefixMatchIsExact, { seed: SEED });
    expect(details.failed).toBe(true);
    const [counterexample] = details.counterexample ?? [];
    expect(counterexample?.uri.startsWith(registered)).toBe(true);
    expect(counterexample!.uri.length - registered.length).toBe(1);
  });

  it(
    'cross-shrinks: over every kind, a prefix-match counterexample ends as the registered URI plus ' + 'one character',
    () => {
      const registered = 'https://client.example/cb';
      for (const seed of [1, 2, 3, SEED]) {
        const details = fc.check(
          fc.property(redirectUriNearMiss(registered), ({ uri }) => !uri.startsWith(registered)),
          { seed },
        );
        const [counterexample] = details.counterexample ?? [];
        expect(counterexample).toMatchObject({ kind: 'prefix-extension' });
        expect(counterexample!.uri).toHaveLength(registered.length + 1);
      }
    },
  );
});

describe('parserConfusions', () => {
  it('has every kind for an ordinary https redirect URI', () => {
    const kinds = new Set(parserConfusions('https://web.example.test/callback').map((c) => c.kind));
    expect([...kinds].sort()).toEqual([...PARSER_CONFUSION_KINDS].sort());
  });

  it.each(REGISTERED)('gives %s fixed strings, each another, a browser-equivalent one marked', (registered) => {
    const cases = parserConfusions(registered);
    expect(cases.length).toBeGreaterThanOrEqual(4);
    expect(new Set(cases.map((c) => c.uri)).size).toBe(cases.length);
    for (const c of cases) {
      expect(c.uri, c.kind).not.toBe(registered);
      let href: string | undefined;
      try {
        href = new URL(c.uri).href;
      } catch {
        href = undefined;
      }
      expect(c.caveat === 'same-resource', c.uri).toBe(href === new URL(registered).href);
    }
  });

  it('sends a browser to the attacker through userinfo, a backslash or an encoded slash', () => {
    const hosts = parserConfusions('https://web.example.test/callback')
      .filter((c) => ['userinfo-at', 'backslash', 'encoded-slash'].includes(c.kind))
      .map((c) => new URL(c.uri).hostname);
    expect(hosts.filter((h) => h === 'attacker.example')).toHaveLength(3);
  });

  it('puts an IDN homograph of the host, which a browser sends elsewhere', () => {
    const idn = parserConfusions('https://web.example.test/callback').filter((c) => c.kind === 'idn-host');
    expect(idn.map((c) => new URL(c.uri).hostname)).toEqual(['xn--wb-nlc.example.test', 'web.example.test']);
  });
});

describe('differingRedirectUris', () => {
  it('gives one URI per way of differing, each another string, none a mere normalisation', () => {
    expect(differingRedirectUris('http://127.0.0.1:3000/callback')).toEqual([
      { how: 'an added query', uri: 'http://127.0.0.1:3000/callback?conformance=1' },
      { how: 'another port', uri: 'http://127.0.0.1:3001/callback' },
      { how: 'another path', uri: 'http://127.0.0.1:3000/callback/conformance' },
      { how: 'a trailing slash', uri: 'http://127.0.0.1:3000/callback/' },
      { how: 'the case of its path', uri: 'http://127.0.0.1:3000/CALLBACK' },
    ]);
    const withQuery = differingRedirectUris('https://app.example/cb/?x=1');
    expect(withQuery.map((v) => v.uri)).toEqual([
      'https://app.example/cb/?x=1&conformance=1',
      'https://app.example:444/cb/?x=1',
      'https://app.example/cb/conformance?x=1',
      'https://app.example/cb?x=1',
      'https://app.example/CB/?x=1',
    ]);
    // No path to change the case of or to trim: those ways are left out, never the URI itself.
    expect(differingRedirectUris('https://app.example/').map((v) => v.how)).toEqual([
      'an added query',
      'another port',
      'another path',
    ]);
  });
});
