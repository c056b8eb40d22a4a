/**
 * Malformed token requests (RFC 6749 §3.2, §4.1.3, §5.2) as raw HTTP bodies with their
 * Content-Type, built from a valid base request so the harness can aim them at a real target.
 * A correct server answers each with a §5.2 JSON error (token.error-format), never a 5xx.
 */
import fc from 'fast-check';
import { GRANT, JWT_BEARER_GRANT, SAML2_BEARER_GRANT } from '../protocol/grants.ts';

export const MALFORMED_TOKEN_REQUEST_KINDS = [
  'wrong-type',
  'duplicate-param',
  'missing-param',
  'unknown-grant-type',
  'wrong-content-type',
  'broken-json',
  'broken-percent-encoding',
  'huge-body',
  'non-utf8',
] as const;
export type MalformedTokenRequestKind = (typeof MALFORMED_TOKEN_REQUEST_KINDS)[number];
export type TokenRequestEncoding = 'form' | 'json';

export const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';
export const JSON_CONTENT_TYPE = 'application/json';

export interface RawTokenRequest {
  /** undefined: send no Content-Type header at all. */
  contentType: string | undefined;
  body: string | Buffer;
}

export interface MalformedTokenRequest extends RawTokenRequest {
  kind: MalformedTokenRequestKind;
  variant: string;
  description: string;
}

/** A valid token request's parameters, grant_type included. */
export type TokenRequestParams = Readonly<Record<string, string>>;

export interface MalformedTokenRequestOptions {
  /** How the target takes token requests (default 'form', RFC 6749 §4.1.3). */
  encoding?: TokenRequestEncoding;
  /** Parameters whose absence makes the request invalid (default: REQUIRED_TOKEN_PARAMS of the grant). */
  required?: readonly string[];
  kinds?: readonly MalformedTokenRequestKind[];
  /** Size range of 'huge-body' requests in bytes (default 1 MiB + 1 to 2 MiB). Huge bodies are rare. */
  hugeBytes?: { min: number; max: number };
}

/**
 * Parameters each grant requires (RFC 6749 §4.1.3, §4.3.2, §4.4.2, §6; RFC 7636 §4.5; RFC 8628 §3.4;
 * RFC 8693 §2.1). client_id is left out: with HTTP Basic authentication it is not sent.
 */
export const REQUIRED_TOKEN_PARAMS: Readonly<Record<string, readonly string[]>> = {
  authorization_code: ['grant_type', 'code', 'redirect_uri', 'code_verifier'],
  refresh_token: ['grant_type', 'refresh_token'],
  client_credentials: ['grant_type'],
  password: ['grant_type', 'username', 'password'],
  [GRANT.device]: ['grant_type', 'device_code'],
  [GRANT.exchange]: ['grant_type', 'subject_token', 'subject_token_type'],
};
export const KNOWN_GRANT_TYPES = [...Object.keys(REQUIRED_TOKEN_PARAMS), JWT_BEARER_GRANT, SAML2_BEARER_GRANT];

type Entries = [string, string][];
const enc = (s: string): string => encodeURIComponent(s).replace(/%20/g, '+');
const formBody = (entries: Entries): string => entries.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&');
const jsonBody = (entries: Entries): string => JSON.stringify(Object.fromEntries(entries));
const contentTypeOf = (encoding: TokenRequestEncoding): string =>
  encoding === 'json' ? JSON_CONTENT_TYPE : FORM_CONTENT_TYPE;

/** The valid request, encoded as the target takes it. */
export function encodeTokenRequest(
  params: TokenRequestParams,
  encoding: TokenRequestEncoding = 'form',
): RawTokenRequest {
  const entries = Object.entries(params);
  return { contentType: contentTypeOf(encoding), body: encoding === 'json' ? jsonBody(entries) : formBody(entries) };
}

const BAD_PERCENT = ['%', '%z', '%zz', '%e', '%%41', '%u0041', '%ff', '%c0%af', '%e2%82', '%ed%a0%80'];
// Invalid UTF-8 (RFC 3629 §3): a lone 0xff, an overlong '/', a truncated sequence, a surrogate, a stray continuation
// byte.
const BAD_UTF8 = [[0xff], [0xfe, 0xff], [0xc0, 0xaf], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0x80]];
const LOWER = [...'abcdefghijklmnopqrstuvwxyz_'];
const WRONG_JSON_TYPES: Record<string, (value: string) => unknown> = {
  number: () => 42,
  boolean: () => true,
  null: () => null,
  array: (v) => [v],
  object: (v) => ({ value: v }),
  'array-of-two': (v) => [v, v],
};

interface Context {
  entries: Entries;
  keys: string[];
  required: string[];
  encoding: TokenRequestEncoding;
  encode: (entries: Entries) => string;
  contentType: string;
  huge: { min: number; max: number };
}
type Variant = Omit<MalformedTokenRequest, 'kind'>;

const replaced = (entries: Entries, key: string, value: string | undefined): Entries =>
  entries.flatMap(([k, v]): Entries => (k !== key ? [[k, v]] : value === undefined ? [] : [[k, value]]));
const valueAt = (entries: Entries, key: string): string => entries.find(([k]) => k === key)?.[1] ?? '';

/** Letters and underscores only: encoded the same in a form and in JSON. */
const MARKER = '__idp_conformance_marker__';

/** The encoded request with raw `suffix` (text or bytes, not encoded) right after the encoded value of `key`. */
function withRawSuffix(
  encode: (e: Entries) => string,
  entries: Entries,
  key: string,
  suffix: string | Buffer,
): string | Buffer {
  const [before = '', after = ''] = encode(replaced(entries, key, `${valueAt(entries, key)}${MARKER}`)).split(MARKER);
  return typeof suffix === 'string'
    ? before + suffix + after
    : Buffer.concat([Buffer.from(before), suffix, Buffer.from(after)]);
}

const KINDS: Record<MalformedTokenRequestKind, (c: Context) => fc.Arbitrary<Variant> | undefined> = {
  // Parameters are strings (RFC 6749 §3.2, Appendix A); in JSON a number/array/object, in a form the
  // bracket syntax that qs-style parsers turn into arrays and objects.
  'wrong-type': (c) => {
    if (c.encoding === 'json') {
      return fc
        .tuple(fc.constantFrom(...c.keys), fc.constantFrom(...Object.keys(WRONG_JSON_TYPES)))
        .map(([key, variant]) => ({
          variant,
          contentType: JSON_CONTENT_TYPE,
          body: JSON.stringify({
            ...Object.fromEntries(c.entries),
            [key]: WRONG_JSON_TYPES[variant]?.(valueAt(c.entries, key)),
          }),
          description: `${key} sent as ${variant}`,
        }));
    }
    return fc.tuple(fc.constantFrom(...c.keys), fc.constantFrom('[]', '[0]', '[value]')).map(([key, brackets]) => ({
      variant: brackets === '[value]' ? 'form-object' : 'form-array',
      contentType: FORM_CONTENT_TYPE,
      body: c.entries.map(([k, v]) => `${enc(k)}${k === key ? brackets : ''}=${enc(v)}`).join('&'),
      description: `${key} sent as ${key}${brackets}`,
    }));
  },
  // RFC 6749 §3.2: request parameters MUST NOT be included more than once.
  'duplicate-param': (c) =>
    fc
      .tuple(fc.constantFrom(...c.keys), fc.constantFrom('same-value', 'other-value', 'empty-value'))
      .map(([key, variant]) => {
        const value = valueAt(c.entries, key);
        const second = variant === 'same-value' ? value : variant === 'empty-value' ? '' : `${value}-other`;
        const body =
          c.encoding === 'json'
            ? `${jsonBody(c.entries).slice(0, -1)},${JSON.stringify(key)}:${JSON.stringify(second)}}`
            : `${formBody(c.entries)}&${formBody([[key, second]])}`;
        return { variant, contentType: c.contentType, body, description: `${key} sent twice (${variant})` };
      }),
  // RFC 6749 §3.2: a parameter without a value is treated as omitted; §5.2 invalid_request.
  'missing-param': (c) =>
    c.required.length === 0
      ? undefined
      : fc.tuple(fc.constantFrom(...c.required), fc.constantFrom('absent', 'empty-value')).map(([key, variant]) => ({
          variant,
          contentType: c.contentType,
          body: c.encode(replaced(c.entries, key, variant === 'absent' ? undefined : '')),
          description: `required ${key} ${variant === 'absent' ? 'left out' : 'sent empty'}`,
        })),
  // RFC 6749 §5.2 unsupported_grant_type; values are case-sensitive and not trimmed.
  'unknown-grant-type': (c) => {
    const grant = valueAt(c.entries, 'grant_type');
    const fixed = [
      'foo',
      'implicit',
      'token',
      'urn:ietf:params:oauth:grant-type:unknown',
      grant.toUpperCase(),
      ` ${grant}`,
      `${grant} `,
    ].filter((g) => !KNOWN_GRANT_TYPES.includes(g));
    const generated = fc
      .string({ unit: fc.constantFrom(...LOWER), minLength: 1, maxLength: 12 })
      .map((g) => (KNOWN_GRANT_TYPES.includes(g) ? `${g}_x` : g));
    return fc.oneof(fc.constantFrom(...fixed), generated).map((value) => ({
      variant: JSON.stringify(value),
      contentType: c.contentType,
      body: c.encode(replaced(c.entries, 'grant_type', value)),
      description: `grant_type ${JSON.stringify(value)}`,
    }));
  },
  // RFC 6749 §3.2: the token endpoint takes application/x-www-form-urlencoded.
  'wrong-content-type': (c) => {
    const body = c.encode(c.entries);
    const boundary = 'idp-conformance-boundary';
    const multipart = `${c.entries
      .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; ` + `name="${k}"\r\n\r\n${v}\r\n`)
      .join('')}--${boundary}--\r\n`;
    const swapped = c.encoding === 'json' ? FORM_CONTENT_TYPE : JSON_CONTENT_TYPE;
    const variants: Variant[] = [
      ...['text/plain', 'application/xml', 'application/octet-stream', undefined, swapped].map((contentType) => ({
        variant: contentType ?? 'none',
        contentType,
        body,
        description: `${c.encoding} body sent as ${contentType ?? 'no Content-Type'}`,
      })),
      {
        variant: 'multipart',
        contentType: `multipart/form-data; boundary=${boundary}`,
        body: multipart,
        description: 'parameters sent as multipart/form-data',
      },
    ];
    return fc.constantFrom(...variants);
  },
  // RFC 8259 §2: JSON text; the body must be one object of string members.
  'broken-json': (c) => {
    const text = jsonBody(c.entries);
    const open = text.slice(0, -1);
    const fixed: [string, string][] = [
      ['trailing-comma', `${open},}`],
      ['single-quotes', text.replace(/"/g, "'")],
      ['unquoted-keys', text.replace(/"([^"]+)":/g, '$1:')],
      ['comment', `${open}/* x */}`],
      ['nan', `${open},"x":NaN}`],
      ['empty', ''],
      ['array', JSON.stringify(c.entries)],
      ['string', JSON.stringify(text)],
      ['null', 'null'],
    ];
    const truncated = fc.nat().map((n): [string, string] => ['truncated', text.slice(0, 1 + (n % (text.length - 1)))]);
    return fc.oneof(fc.constantFrom(...fixed), truncated).map(([variant, body]) => ({
      variant,
      contentType: JSON_CONTENT_TYPE,
      body,
      description: `broken JSON body (${variant})`,
    }));
  },
  // RFC 3986 §2.1: "%" HEXDIG HEXDIG, decoding to UTF-8 (WHATWG application/x-www-form-urlencoded).
  'broken-percent-encoding': (c) =>
    fc.tuple(fc.constantFrom(...c.keys), fc.constantFrom(...BAD_PERCENT)).map(([key, bad]) => ({
      variant: bad,
      contentType: FORM_CONTENT_TYPE,
      body: withRawSuffix(formBody, c.entries, key, bad),
      description: `${key} value ends in the bad percent-encoding ${bad}`,
    })),
  // A body far beyond any token request: the server must refuse it without falling over.
  'huge-body': (c) =>
    fc.tuple(fc.integer(c.huge), fc.constantFrom('padding-param', 'huge-value')).map(([size, variant]) => {
      const entries: Entries = variant === 'padding-param' ? [...c.entries, ['padding', '']] : c.entries;
      const key = variant === 'padding-param' ? 'padding' : (c.keys.find((k) => k !== 'grant_type') ?? 'grant_type');
      const filler = 'a'.repeat(Math.max(0, size - Buffer.byteLength(withRawSuffix(c.encode, entries, key, ''))));
      return {
        variant,
        contentType: c.contentType,
        body: withRawSuffix(c.encode, entries, key, filler),
        description: `${size}-byte body (${key} padded)`,
      };
    }),
  // Bodies are UTF-8 (RFC 8259 §8.1; WHATWG form encoding): invalid byte sequences in a value.
  'non-utf8': (c) =>
    fc.tuple(fc.constantFrom(...c.keys), fc.constantFrom(...BAD_UTF8)).map(([key, bytes]) => {
      const hex = Buffer.from(bytes).toString('hex');
      return {
        variant: hex,
        contentType: c.contentType,
        body: withRawSuffix(c.encode, c.entries, key, Buffer.from(bytes)),
        description: `${key} value with the invalid UTF-8 bytes 0x${hex}`,
      };
    }),
};

/** Malformed variants of the valid token request `base`, each labelled with what is wrong. */
export function malformedTokenRequest(
  base: TokenRequestParams,
  options: MalformedTokenRequestOptions = {},
): fc.Arbitrary<MalformedTokenRequest> {
  const grant = base.grant_type;
  if (!grant) throw new Error('the base token request needs a grant_type');
  const encoding = options.encoding ?? 'form';
  const entries = Object.entries(base);
  const required = options.required ?? REQUIRED_TOKEN_PARAMS[grant] ?? ['grant_type'];
  const c: Context = {
    entries,
    keys: entries.map(([k]) => k),
    required: required.filter((k) => k in base),
    encoding,
    encode: encoding === 'json' ? jsonBody : formBody,
    contentType: contentTypeOf(encoding),
    huge: options.hugeBytes ?? { min: 1024 * 1024 + 1, max: 2 * 1024 * 1024 },
  };
  const kinds = options.kinds ?? MALFORMED_TOKEN_REQUEST_KINDS;
  const arbitraries = kinds.flatMap((kind) => {
    const arb = KINDS[kind](c)?.map((v): MalformedTokenRequest => ({ kind, ...v }));
    return arb ? [{ arbitrary: arb, weight: kind === 'huge-body' ? 1 : 6 }] : [];
  });
  if (arbitraries.length === 0) throw new Error(`no malformation of [${kinds.join(', ')}] applies to this request`);
  return fc.oneof(...arbitraries);
}
