/**
 * Near misses of a registered redirect URI: strings that differ from it (exact string compare)
 * but look close enough that a server comparing loosely (prefix, case-insensitive, parsed and
 * normalised, host suffix...) might accept them. RFC 9700 §4.1.3 and RFC 6749 §3.1.2.4 require
 * exact string matching; each variant below names the loose comparison it catches.
 */
import fc from 'fast-check';
import {
  DEFAULT_PORTS,
  formatAuthority,
  formatUri,
  isIpHost,
  isLoopbackHost,
  parseUri,
  uriOrigin,
  type UriAuthority,
  type UriParts,
} from './uri-parts.ts';

export const NEAR_MISS_KINDS = [
  'prefix-extension',
  'trailing-slash',
  'extra-path-segment',
  'changed-path-segment',
  'extra-query',
  'fragment',
  'scheme-case',
  'host-case',
  'path-case',
  'other-scheme',
  'other-port',
  'userinfo-at',
  'suffix-host',
  'subdomain-host',
  'prefixed-host',
  'path-traversal',
  'double-encoding',
  'parameter-pollution',
] as const;
export type NearMissKind = (typeof NEAR_MISS_KINDS)[number];

/**
 * Why a server could accept the near miss and still be defensible:
 * - 'same-resource': a browser (WHATWG URL) resolves it to the registered URL (case of scheme or
 *   host, an explicit default port, ...). Exact matching still refuses it; a loose match is lax
 *   but not exploitable.
 * - 'loopback-port': only the port of a loopback redirect URI differs, which RFC 8252 §7.3 says
 *   the server MUST allow for native apps.
 */
export type NearMissCaveat = 'same-resource' | 'loopback-port';

export interface RedirectUriNearMiss {
  kind: NearMissKind;
  uri: string;
  caveat?: NearMissCaveat;
}

export interface NearMissOptions {
  /** A host the attacker controls (default `attacker.example`). */
  attackerHost?: string;
  /** Only these kinds (default: every kind applicable to the registered URI). */
  kinds?: readonly NearMissKind[];
}

type Variant = (p: UriParts, registered: string, attackerHost: string) => fc.Arbitrary<string> | undefined;

const LOWER_ALNUM = [...'abcdefghijklmnopqrstuvwxyz0123456789'];
const word = fc.string({ unit: fc.constantFrom(...LOWER_ALNUM), minLength: 1, maxLength: 8 });
const wordOr = (...fixed: string[]): fc.Arbitrary<string> => fc.oneof(fc.constantFrom(...fixed), word);
/** Names an authorization response adds to the redirect URI (RFC 6749 §4.1.2, §4.2.2, RFC 9207). */
const RESPONSE_PARAMS = [
  'code',
  'state',
  'iss',
  'error',
  'error_description',
  'access_token',
  'id_token',
  'token_type',
];
const OTHER_SCHEMES = ['https', 'http', 'javascript', 'data', 'file', 'ftp', 'ws', 'wss', 'com.attacker.app'];
const TRAVERSAL_STEPS = ['../', '%2e%2e/', '%2E%2E/', '.%2e/', '..;/', '..%2f', '%2e%2e%2f', '..\\'];
const DOUBLE_ENCODED_STEPS = ['%252e%252e/', '%252e%252e%252f', '..%252f'];
const PREFIX_EXTENSION_CHARS = [...'abcdefghijklmnopqrstuvwxyz0123456789-._~/'];

const withPath = (p: UriParts, path: string): string => formatUri({ ...p, path });
const withQuery = (p: UriParts, query: string): string => formatUri({ ...p, query });
const withAuthority = (p: UriParts, a: UriAuthority, change: Partial<UriAuthority>): string =>
  formatUri({ ...p, authority: { ...a, ...change } });
const trimSlash = (path: string): string => (path.endsWith('/') ? path.slice(0, -1) : path);
const appendParam = (query: string | undefined, pair: string): string => (query ? `${query}&${pair}` : pair);
const queryNames = (query: string | undefined): string[] => [
  ...new Set(
    (query ?? '')
      .split('&')
      .filter(Boolean)
      .map((pair) => pair.split('=')[0] ?? ''),
  ),
];

const flipCase = (c: string): string => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase());

/** Flips the case of a non-empty subset of the ASCII letters of `text`; undefined if it has none. */
function caseChange(text: string): fc.Arbitrary<string> | undefined {
  const chars = [...text];
  const letters = chars.flatMap((c, i) => (/[A-Za-z]/.test(c) ? [i] : []));
  if (letters.length === 0) return undefined;
  return fc.subarray(letters, { minLength: 1 }).map((flip) => {
    const out = [...chars];
    for (const i of flip) out[i] = flipCase(chars[i] ?? '');
    return out.join('');
  });
}

const VARIANTS: Record<NearMissKind, Variant> = {
  // The classic prefix-match bug (RFC 9700 §4.1.3): registered + anything. Shrinks to one character.
  'prefix-extension': (_p, registered) =>
    fc
      .string({ unit: fc.constantFrom(...PREFIX_EXTENSION_CHARS), minLength: 1, maxLength: 16 })
      .map((s) => registered + s),
  // RFC 3986 §6.2.3 scheme-based normalisation is not allowed for redirect URIs (RFC 9700 §4.1.3).
  'trailing-slash': (p) =>
    fc.constant(withPath(p, p.path.length > 1 && p.path.endsWith('/') ? trimSlash(p.path) : `${p.path}/`)),
  'extra-path-segment': (p) =>
    fc
      .tuple(fc.boolean(), wordOr('evil', 'callback', 'admin'))
      .map(([prepend, seg]) =>
        withPath(p, prepend && p.path.startsWith('/') ? `/${seg}${p.path}` : `${trimSlash(p.path)}/${seg}`),
      ),
  'changed-path-segment': (p) => {
    const segments = p.path.split('/');
    const indices = segments.flatMap((s, i) => (s === '' ? [] : [i]));
    if (indices.length === 0) return undefined;
    const edit = fc.oneof(
      wordOr('evil', 'callback', 'cb', 'redirect').map((w) => (_s: string) => w),
      fc.nat().map((n) => (s: string) => s.slice(0, n % s.length) + s.slice((n % s.length) + 1)), // typo: drop a char
    );
    return fc.tuple(fc.constantFrom(...indices), edit).map(([i, change]) => {
      const original = segments[i] ?? '';
      const changed = change(original);
      const out = [...segments];
      out[i] = changed === '' || changed === original ? `${original}x` : changed;
      return withPath(p, out.join('/'));
    });
  },
  // RFC 6749 §3.1.2: the query is part of the registered URI and compared with it.
  'extra-query': (p) => {
    const taken = new Set([...queryNames(p.query), ...RESPONSE_PARAMS]);
    return fc.tuple(wordOr('x', 'next', 'debug'), fc.oneof(fc.constant(''), word)).map(([name, value]) => {
      let n = name;
      while (taken.has(n)) n += '_';
      return withQuery(p, appendParam(p.query, `${n}=${value}`));
    });
  },
  // RFC 6749 §3.1.2: the redirection endpoint URI MUST NOT include a fragment component.
  fragment: (_p, registered) =>
    fc.oneof(fc.constantFrom('', 'access_token=attacker'), word).map((f) => `${registered}#${f}`),
  // RFC 3986 §6.2.2.1 case normalisation of scheme and host: equivalent, but not an exact match.
  'scheme-case': (p) => caseChange(p.scheme)?.map((scheme) => formatUri({ ...p, scheme })),
  'host-case': (p) => {
    const a = p.authority;
    return a ? caseChange(a.host)?.map((host) => withAuthority(p, a, { host })) : undefined;
  },
  // Paths are case-sensitive (RFC 3986 §6.2.2.1): /Callback is another resource.
  'path-case': (p) => caseChange(p.path)?.map((path) => withPath(p, path)),
  'other-scheme': (p) =>
    fc
      .constantFrom(...OTHER_SCHEMES.filter((s) => s !== p.scheme.toLowerCase()))
      .map((scheme) => formatUri({ ...p, scheme })),
  // RFC 9700 §4.1.3: ports must match too (except loopback ports of native apps, RFC 8252 §7.3).
  'other-port': (p) => {
    const a = p.authority;
    if (!a) return undefined;
    const other = fc
      .integer({ min: 1, max: 65535 })
      .map((n) => (String(n) === a.port ? String(n === 65535 ? 1 : n + 1) : String(n)));
    const options = [other.map((port) => withAuthority(p, a, { port }))];
    if (a.port !== undefined)
      options.push(
        fc.constantFrom(withAuthority(p, a, { port: undefined }), withAuthority(p, a, { port: `0${a.port}` })),
      );
    const defaultPort = DEFAULT_PORTS[p.scheme.toLowerCase()];
    if (a.port === undefined && defaultPort) options.push(fc.constant(withAuthority(p, a, { port: defaultPort })));
    return fc.oneof(...options);
  },
  // RFC 3986 §3.2.1 userinfo: `registered-host@attacker` sends the browser to the attacker;
  // a backslash is a path separator to browsers (WHATWG URL) but not to RFC 3986 parsers.
  'userinfo-at': (p, _r, attacker) => {
    const a = p.authority;
    if (!a) return undefined;
    const hostPort = formatAuthority({ host: a.host, port: a.port });
    const tail = formatUri(p).slice(uriOrigin(p).length);
    const variants = [`${hostPort}@${attacker}`, `${attacker}@${hostPort}`, `${attacker}\\@${hostPort}`];
    const defaultPort = DEFAULT_PORTS[p.scheme.toLowerCase()];
    if (a.port === undefined && defaultPort) variants.push(`${a.host}:${defaultPort}@${attacker}`);
    return fc.constantFrom(...variants).map((authority) => `${p.scheme}://${authority}${tail}`);
  },
  // Host checks by startsWith / endsWith (RFC 9700 §4.1.1, §4.1.3).
  'suffix-host': (p, _r, attacker) => {
    const a = p.authority;
    if (!a || a.host.startsWith('[')) return undefined;
    return fc
      .oneof(fc.constantFrom(`.${attacker}`, `-${attacker}`, '.'), word)
      .map((suffix) => withAuthority(p, a, { host: a.host + suffix }));
  },
  'subdomain-host': (p) => {
    const a = p.authority;
    if (!a || isIpHost(a.host)) return undefined;
    return wordOr('evil', 'attacker', 'www').map((label) => withAuthority(p, a, { host: `${label}.${a.host}` }));
  },
  'prefixed-host': (p) => {
    const a = p.authority;
    if (!a || isIpHost(a.host)) return undefined;
    return wordOr('evil', 'attacker-', 'my').map((label) => withAuthority(p, a, { host: label + a.host }));
  },
  // RFC 3986 §5.2.4 dot segments, encoded (%2e), and the `..;` of servlet containers: a prefix
  // match accepts registered + `/../evil`, a browser then resolves it elsewhere (RFC 9700 §4.1.1).
  'path-traversal': (p) =>
    fc
      .tuple(fc.constantFrom(...TRAVERSAL_STEPS), fc.integer({ min: 1, max: 3 }), wordOr('evil'))
      .map(([step, depth, target]) => withPath(p, `${trimSlash(p.path)}/${step.repeat(depth)}${target}`)),
  // Double percent-encoding (%25xx): a server that decodes twice sees another path.
  'double-encoding': (p) => {
    const traversal = fc
      .tuple(fc.constantFrom(...DOUBLE_ENCODED_STEPS), wordOr('evil'))
      .map(([step, target]) => `${trimSlash(p.path)}/${step}${target}`);
    const plain = [...p.path].flatMap((c, i) => (/[A-Za-z0-9._~-]/.test(c) ? [i] : []));
    if (plain.length === 0) return traversal.map((path) => withPath(p, path));
    const encodeOne = fc
      .constantFrom(...plain)
      .map((i) => `${p.path.slice(0, i)}%25${p.path.charCodeAt(i).toString(16).toUpperCase()}${p.path.slice(i + 1)}`);
    return fc.oneof(traversal, encodeOne).map((path) => withPath(p, path));
  },
  // Parameters repeated, or named like the response's own (code, state, iss): the response then
  // carries two of them (RFC 6749 §3.1 "MUST NOT be included more than once").
  'parameter-pollution': (p) => {
    const value = wordOr('attacker');
    const options = [
      fc.tuple(fc.constantFrom(...RESPONSE_PARAMS), value).map(([n, v]) => appendParam(p.query, `${n}=${v}`)),
    ];
    const names = queryNames(p.query);
    if (p.query && names.length > 0) {
      const query = p.query;
      options.push(
        fc
          .tuple(fc.constantFrom(...names), value, fc.boolean())
          .map(([n, v, before]) => (before ? `${n}=${v}&${query}` : `${query}&${n}=${v}`)),
      );
    }
    return fc.oneof(...options).map((query) => withQuery(p, query));
  },
};

function parseRegistered(registered: string): UriParts {
  const parts = parseUri(registered);
  if (parts.path !== '' && !parts.path.startsWith('/')) {
    throw new Error(`redirect URI with a rootless path is not supported: ${registered}`);
  }
  return parts;
}

function caveatOf(kind: NearMissKind, uri: string, registered: string, parts: UriParts): NearMissCaveat | undefined {
  try {
    if (new URL(uri).href === new URL(registered).href) return 'same-resource';
  } catch {
    // Not a WHATWG URL: a browser would not go anywhere the registered URI goes.
  }
  if (kind === 'other-port' && parts.authority && isLoopbackHost(parts.authority.host)) return 'loopback-port';
  return undefined;
}

/** The kinds that exist for this registered URI (e.g. no 'host-case' for 127.0.0.1). */
export function nearMissKindsFor(registered: string): NearMissKind[] {
  const parts = parseRegistered(registered);
  return NEAR_MISS_KINDS.filter((kind) => VARIANTS[kind](parts, registered, 'attacker.example') !== undefined);
}

/** Near misses of `registered`, every one a different string, each labelled with its kind. */
export function redirectUriNearMiss(
  registered: string,
  options: NearMissOptions = {},
): fc.Arbitrary<RedirectUriNearMiss> {
  const parts = parseRegistered(registered);
  const attackerHost = options.attackerHost ?? 'attacker.example';
  const wanted = options.kinds ?? NEAR_MISS_KINDS;
  const arbitraries = wanted.flatMap((kind) => {
    const arb = VARIANTS[kind](parts, registered, attackerHost);
    return arb
      ? [
          arb.map((uri): RedirectUriNearMiss => {
            const caveat = caveatOf(kind, uri, registered, parts);
            return caveat ? { kind, uri, caveat } : { kind, uri };
          }),
        ]
      : [];
  });
  if (arbitraries.length === 0) throw new Error(`no near-miss kind of [${wanted.join(', ')}] applies to ${registered}`);
  // Cross-shrinking tries the first kinds too: a prefix match shrinks to registered + one character.
  return fc.oneof({ withCrossShrink: true }, ...arbitraries);
}

/** Redirect URIs that parse differently in different URL parsers (RFC 3986 vs WHATWG URL vs naive splitting). */
export const PARSER_CONFUSION_KINDS = [
  'userinfo-at',
  'backslash',
  'encoded-slash',
  'dot-segments',
  'mixed-case',
  'idn-host',
] as const;
export type ParserConfusionKind = (typeof PARSER_CONFUSION_KINDS)[number];

export interface ParserConfusion {
  kind: ParserConfusionKind;
  uri: string;
  /** 'same-resource': a browser resolves it to the registered URI (lax to accept, not exploitable). */
  caveat?: 'same-resource';
}

/** Look-alike letters from other scripts (Cyrillic): an IDN host a reader takes for the registered one. */
const HOMOGLYPHS: Record<string, string> = { a: 'а', c: 'с', e: 'е', o: 'о', p: 'р', x: 'х', y: 'у' };
/** ASCII letters and digits in their fullwidth forms, which IDNA (UTS #46) maps back to ASCII. */
const fullwidth = (text: string): string =>
  [...text].map((c) => (/[A-Za-z0-9]/.test(c) ? String.fromCodePoint(c.codePointAt(0)! + 0xfee0) : c)).join('');
const alternateCase = (text: string): string =>
  [...text].map((c, i) => (i % 2 === 0 ? c.toUpperCase() : c.toLowerCase())).join('');

/**
 * The fixed parser-confusion cases every run tries (not only random ones): userinfo and `@`, a backslash, an encoded
 * slash, dot segments, a mixed-case scheme and host, an IDN host (a homograph; fullwidth letters). Each is another
 * string than `registered`, so exact matching (RFC 9700 §4.1.3) refuses every one; those that start with the
 * registered URI are what a prefix match lets through.
 */
export function parserConfusions(registered: string, attackerHost = 'attacker.example'): ParserConfusion[] {
  const p = parseRegistered(registered);
  const a = p.authority;
  const path = trimSlash(p.path);
  const out: Array<{ kind: ParserConfusionKind; uri: string }> = [
    { kind: 'backslash', uri: withPath(p, `${path}\\..\\evil`) },
    { kind: 'encoded-slash', uri: withPath(p, `${path}%2F..%2Fevil`) },
    { kind: 'dot-segments', uri: withPath(p, `${path}/../evil`) },
    { kind: 'mixed-case', uri: formatUri({ ...p, scheme: alternateCase(p.scheme) }) },
  ];
  if (a) {
    const hostPort = formatAuthority({ host: a.host, port: a.port });
    const tail = formatUri(p).slice(uriOrigin(p).length);
    const at = (authority: string) => `${p.scheme}://${authority}${tail}`;
    out.push(
      { kind: 'userinfo-at', uri: at(`${hostPort}@${attackerHost}`) },
      { kind: 'userinfo-at', uri: at(`${attackerHost}@${hostPort}`) },
      { kind: 'backslash', uri: at(`${attackerHost}\\@${hostPort}`) },
      { kind: 'encoded-slash', uri: at(`${hostPort}%2F@${attackerHost}`) },
      {
        kind: 'mixed-case',
        uri: withAuthority(p, a, { host: alternateCase(a.host) }).replace(/^[^:]+/, alternateCase(p.scheme)),
      },
    );
    if (p.path.startsWith('/')) out.push({ kind: 'dot-segments', uri: withPath(p, `/evil/..${p.path}`) });
    if (!isIpHost(a.host) && /[a-z]/i.test(a.host)) {
      const i = [...a.host].findIndex((c) => HOMOGLYPHS[c] !== undefined);
      if (i >= 0) {
        const host = [...a.host].map((c, j) => (j === i ? HOMOGLYPHS[c] : c)).join('');
        out.push({ kind: 'idn-host', uri: withAuthority(p, a, { host }) });
      }
      out.push({ kind: 'idn-host', uri: withAuthority(p, a, { host: fullwidth(a.host) }) });
    }
  }
  const seen = new Set([registered]);
  return out.flatMap((c) => {
    if (seen.has(c.uri)) return [];
    seen.add(c.uri);
    return [sameResource(c.uri, registered) ? { ...c, caveat: 'same-resource' as const } : c];
  });
}

function sameResource(uri: string, registered: string): boolean {
  try {
    return new URL(uri).href === new URL(registered).href;
  } catch {
    return false;
  }
}

/**
 * One URI for each way a token request's redirect_uri may differ from the authorization request's `used` (RFC 6749
 * §4.1.3: "identical"): an added query, another port, another path, a trailing slash, the case of its path. Each is
 * another string and another resource: none is an explicit default port or a change of case in the scheme or host.
 */
export function differingRedirectUris(used: string): Array<{ how: string; uri: string }> {
  const p = parseUri(used);
  const a = p.authority;
  const out = [{ how: 'an added query', uri: withQuery(p, appendParam(p.query, 'conformance=1')) }];
  if (a) {
    const port = Number(a.port ?? DEFAULT_PORTS[p.scheme.toLowerCase()] ?? 0);
    out.push({ how: 'another port', uri: withAuthority(p, a, { port: String(port >= 65535 ? port - 1 : port + 1) }) });
  }
  out.push({ how: 'another path', uri: withPath(p, `${trimSlash(p.path)}/conformance`) });
  if (p.path.length > 1)
    out.push({ how: 'a trailing slash', uri: withPath(p, p.path.endsWith('/') ? trimSlash(p.path) : `${p.path}/`) });
  out.push({ how: 'the case of its path', uri: withPath(p, [...p.path].map(flipCase).join('')) });
  return out.filter((v, i) => v.uri !== used && out.findIndex((w) => w.uri === v.uri) === i);
}
