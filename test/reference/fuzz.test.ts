/**
 * A fast-check fuzz of every endpoint of the reference: discovery, JWKS, /auth, the interaction
 * pages and POSTs, /token with every grant, device authorization, the activation pages,
 * userinfo, introspection and revocation. Requests start from valid ones (live codes, tokens,
 * interaction ids and cookies) and are mutated: parameters changed, dropped, repeated or added;
 * bodies re-encoded, retyped or replaced by garbage; methods, content types, credentials and
 * cookies swapped. Whatever arrives, the server must answer within the time limit, never with a
 * 5xx or a stack trace, and only with what the RFCs allow: a JSON error object with a registered
 * code (JSON endpoints), an HTML page or a redirect to the issuer or to a registered redirect URI
 * (browser-facing endpoints). Afterwards the server still answers and still runs a whole flow.
 * The seed is fixed, so a failure replays exactly; the sizes keep this file within ~20 s.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEGACY_CLIENT, SEEDED_USER, type ClientConfig } from '../../reference/index.ts';
import {
  MACHINE,
  type ReferenceClient,
  SPA,
  WEB,
  newVerifier,
  s256,
  startReference,
} from '../support/reference-client.ts';

/** Fixed, so a failure replays; FUZZ_SEED and FUZZ_RUNS explore further (e.g. FUZZ_RUNS=2000). */
const SEED = Number(process.env.FUZZ_SEED ?? 0x5eed_6749);
/** Cases per endpoint group (the token endpoint gets twice as many). */
const RUNS = Number(process.env.FUZZ_RUNS ?? 200);
const ANSWER_WITHIN_MS = 5000;

const TV = { clientId: 'tv-device' } as const;
const EXCHANGER = { clientId: 'exchanger', clientSecret: 'exchanger-secret-9a6f1d' } as const;
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

/** Registered error codes each JSON endpoint may answer with (IANA OAuth Extensions Error registry). */
const TOKEN_ERRORS = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope', // RFC 6749 §5.2
  'authorization_pending',
  'slow_down',
  'access_denied',
  'expired_token', // RFC 8628 §3.5
  'invalid_target', // RFC 8693 §2.2.2
];
const CODES: Record<string, readonly string[]> = {
  token: TOKEN_ERRORS,
  // RFC 8628 §3.2 → RFC 6749 §5.2
  device: ['invalid_request', 'invalid_client', 'unauthorized_client', 'invalid_scope'],
  introspection: ['invalid_request', 'invalid_client', 'unauthorized_client'], // RFC 7662 §2.3
  revocation: ['invalid_request', 'invalid_client', 'unauthorized_client', 'unsupported_token_type'], // RFC 7009 §2.2.1
  userinfo: ['invalid_request', 'invalid_token', 'insufficient_scope'], // RFC 6750 §3.1
  discovery: ['invalid_request'],
  jwks: ['invalid_request'],
};
/**
 * Errors an authorization response may redirect with (RFC 6749 §4.1.2.1, §4.2.2.1; OIDC Core §3.1.2.6); never
 * server_error.
 */
const AUTHORIZATION_ERRORS = [
  'invalid_request',
  'unauthorized_client',
  'access_denied',
  'unsupported_response_type',
  'invalid_scope',
  'temporarily_unavailable',
  'interaction_required',
  'login_required',
  'account_selection_required',
  'consent_required',
  'invalid_request_uri',
  'invalid_request_object',
  'request_not_supported',
  'request_uri_not_supported',
  'registration_not_supported',
  'invalid_target', // RFC 8707 §2: a resource the server does not know, or malformed
];
/** RFC 6749 §5.2 / §4.1.2.1: error_description is %x20-21 / %x23-5B / %x5D-7E. */
const DESCRIPTION = /^[\x20-\x21\x23-\x5B\x5D-\x7E]*$/;
const STACK_TRACE = /\n\s+at |node_modules|\.ts:\d+:\d+/;

type Pairs = [string, string][];
type Kind = keyof typeof CODES | 'page';

interface FuzzRequest {
  endpoint: Kind;
  method: string;
  path: string;
  query?: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  /** What this case is, for the counterexample. */
  what: string;
}

interface Live {
  codes: { client: ClientConfig; code: string; verifier: string }[];
  accessToken: string;
  refreshToken: string;
  idToken: string;
  ccToken: string;
  deviceCode: string;
  userCode: string;
  interaction: { id: string; cookie: string };
  activation: { id: string; cookie: string };
}

let idp: ReferenceClient;
let live: Live;
const internalErrors: unknown[] = [];

const cookieOf = (res: Response): string =>
  /idpc_interaction=[^;]*/.exec(res.headers.get('set-cookie') ?? '')?.[0] ?? '';
const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

async function setUp(): Promise<Live> {
  const codes = [];
  for (const client of [WEB, SPA, WEB]) {
    const { code, verifier } = await idp.authorizeCode(client, { scope: 'openid profile offline_access' });
    codes.push({ client, code, verifier: verifier! });
  }
  const tokens = await idp.tokensFor(WEB, { scope: 'openid profile email offline_access' });
  const cc = await idp.token({ grant_type: 'client_credentials', scope: 'api:read' }, { client: MACHINE });
  const device = await fetch(`${idp.issuer}/device/auth`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: TV.clientId, scope: 'openid offline_access' }),
  }).then((r) => r.json() as Promise<{ device_code: string; user_code: string }>);
  const auth = await idp.get(
    `/auth?${new URLSearchParams({
      response_type: 'code',
      client_id: WEB.clientId,
      redirect_uri: WEB.redirectUris[0]!,
      scope: 'openid',
      code_challenge: s256(newVerifier()),
      code_challenge_method: 'S256',
    })}`,
  );
  const activate = await fetch(`${idp.issuer}/activate`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ user_code: device.user_code }),
  });
  const loginAction = /action="[^"]*\/interaction\/([^/"]+)\/login"/.exec(await auth.text())?.[1];
  if (auth.status !== 200 || !loginAction) throw new Error(`GET /auth showed no login page (HTTP ${auth.status})`);
  const idOf = (res: Response) => new URL(res.headers.get('location')!, idp.issuer).pathname.split('/').pop()!;
  return {
    codes,
    accessToken: String(tokens.access_token),
    refreshToken: String(tokens.refresh_token),
    idToken: String(tokens.id_token),
    ccToken: String(cc.body.access_token),
    deviceCode: device.device_code,
    userCode: device.user_code,
    interaction: { id: loginAction, cookie: cookieOf(auth) },
    activation: { id: idOf(activate), cookie: cookieOf(activate) },
  };
}

beforeAll(async () => {
  idp = await startReference({ legacyClient: true, deviceInterval: 1 });
  idp.server.app.on('error', (err) => internalErrors.push(err));
  live = await setUp();
}, 30_000);
afterAll(async () => {
  if (process.env.FUZZ_STATS)
    console.log(
      [...seen]
        .sort()
        .map(([k, n]) => `${String(n).padStart(5)} ${k}`)
        .join('\n'),
    );
  await idp?.close();
});

// ---- values -------------------------------------------------------------------------------

const PRINTABLE = [...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i))];
const printable = (maxLength = 40) => fc.string({ unit: fc.constantFrom(...PRINTABLE), maxLength });
const b64url = (value: unknown) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** JWT-shaped strings with odd headers and payloads (alg, kid, crit, jku… of any type and text). */
const oddJwt = fc
  .tuple(
    fc.dictionary(
      fc.constantFrom('alg', 'kid', 'typ', 'crit', 'jku', 'jwk', 'x5u', 'b64', 'zip'),
      fc.oneof(fc.string(), fc.jsonValue()),
    ),
    fc.oneof(
      fc.jsonValue(),
      fc.dictionary(fc.constantFrom('iss', 'sub', 'aud', 'exp', 'nbf', 'scope', 'client_id', 'jti'), fc.jsonValue()),
    ),
    fc.oneof(
      fc.constant(''),
      fc.string({ maxLength: 40 }).map((s) => Buffer.from(s).toString('base64url')),
    ),
  )
  .map(([header, payload, signature]) => `${b64url(header)}.${b64url(payload)}.${signature}`);

/** A value for any parameter: a live one (possibly of the wrong kind), or junk. */
function valueArb(): fc.Arbitrary<string> {
  const liveValues = [
    ...live.codes.map((c) => c.code),
    ...live.codes.map((c) => c.verifier),
    live.accessToken,
    live.refreshToken,
    live.idToken,
    live.ccToken,
    live.deviceCode,
    live.userCode,
    WEB.clientId,
    SPA.clientId,
    MACHINE.clientId,
    WEB.redirectUris[0]!,
    'openid',
    'openid profile email',
    'authorization_code',
    'refresh_token',
    'client_credentials',
    DEVICE_GRANT,
    EXCHANGE_GRANT,
    ACCESS_TOKEN_TYPE,
    'S256',
    'plain',
    'code',
    'token',
    'approve',
    'deny',
    SEEDED_USER.username,
    SEEDED_USER.password,
  ];
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...liveValues) },
    { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        ' ',
        '%',
        '%00',
        '\u0000',
        '../..',
        '{"$ne":1}',
        'null',
        '[]',
        'undefined',
        '__proto__',
        'a'.repeat(5000),
        'é',
        '\ud800',
      ),
    },
    { weight: 1, arbitrary: oddJwt },
  );
}

// ---- mutation and encoding ------------------------------------------------------------------

type Op =
  | { op: 'set'; at: number; value: string }
  | { op: 'drop'; at: number }
  | { op: 'repeat'; at: number; value: string }
  | { op: 'add'; name: string; value: string };

function opsArb(): fc.Arbitrary<Op[]> {
  const value = valueArb();
  const name = fc.oneof(
    fc.constantFrom(
      'scope',
      'client_id',
      'client_secret',
      'code',
      'state',
      'nonce',
      'prompt',
      'resource',
      'access_token',
      'token',
      'request',
      'request_uri',
      'claims',
      'response_mode',
      '__proto__',
      'constructor',
    ),
    fc.string({ maxLength: 12 }),
  );
  return fc.array(
    fc.oneof(
      fc.record({ op: fc.constant('set' as const), at: fc.nat(), value }),
      fc.record({ op: fc.constant('drop' as const), at: fc.nat() }),
      fc.record({ op: fc.constant('repeat' as const), at: fc.nat(), value }),
      fc.record({ op: fc.constant('add' as const), name, value }),
    ),
    { maxLength: 3 },
  );
}

function mutate(base: Pairs, ops: Op[]): Pairs {
  const out: Pairs = base.map(([k, v]) => [k, v]);
  for (const o of ops) {
    if (o.op === 'add') out.push([o.name, o.value]);
    else if (out.length > 0) {
      const at = o.at % out.length;
      if (o.op === 'set') out[at] = [out[at]![0], o.value];
      else if (o.op === 'drop') out.splice(at, 1);
      else out.push([out[at]![0], o.value]);
    }
  }
  return out;
}

const FORM = 'application/x-www-form-urlencoded';
type Encoding = 'form' | 'json' | 'json-typed' | 'garbage' | 'none';

interface EncodedBody {
  contentType?: string;
  body?: string | Uint8Array;
  how: string;
}

function bodyArb(pairs: Pairs, json: boolean): fc.Arbitrary<EncodedBody> {
  const encodings: Encoding[] = json
    ? ['form', 'form', 'form', 'json', 'json-typed', 'garbage', 'none']
    : ['form', 'form', 'form', 'form', 'garbage', 'none'];
  const typed = fc.tuple(
    fc.nat(),
    fc.oneof(
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.string(), { maxLength: 2 }),
      fc.object({ maxDepth: 1 }),
    ),
  );
  const garbage = fc.oneof(
    fc.string({ maxLength: 200 }),
    fc.uint8Array({ maxLength: 200 }),
    fc.constantFrom('{', '[[[[', '{"a":', '%%%', '\u0000'),
  );
  const contentType = fc.constantFrom(
    FORM,
    'application/json',
    'text/plain',
    'multipart/form-data; boundary=x',
    `${FORM}; charset=iso-8859-1`,
    'application/json; charset=utf-16',
    undefined,
  );
  return fc.constantFrom(...encodings).chain((encoding): fc.Arbitrary<EncodedBody> => {
    switch (encoding) {
      case 'form':
        return fc.constant({ contentType: FORM, body: new URLSearchParams(pairs).toString(), how: 'form' });
      case 'json':
        return fc.constant({
          contentType: 'application/json',
          body: `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`,
          how: 'json',
        });
      case 'json-typed':
        return typed.map(([at, value]) => {
          const obj: Record<string, unknown> = Object.fromEntries(pairs);
          const keys = Object.keys(obj);
          if (keys.length) obj[keys[at % keys.length]!] = value;
          return {
            contentType: 'application/json',
            body: JSON.stringify(obj),
            how: `json with a ${value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value}`,
          };
        });
      case 'garbage':
        return fc.tuple(garbage, contentType).map(([body, type]) => ({
          ...(type ? { contentType: type } : {}),
          body,
          how: `garbage as ${type ?? 'no content type'}`,
        }));
      case 'none':
        return contentType.map((type) => ({
          ...(type ? { contentType: type } : {}),
          how: `no body as ${type ?? 'no content type'}`,
        }));
    }
  });
}

/** Client credentials as sent: the client's own, a wrong secret, junk, or none. */
function authArb(client?: { clientId: string; clientSecret?: string }): fc.Arbitrary<Record<string, string>> {
  const own = client?.clientSecret !== undefined ? [basic(client.clientId, client.clientSecret)] : [];
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .constantFrom(...(own.length ? own : ['']))
        .map((a): Record<string, string> => (a ? { authorization: a } : {})),
    },
    { weight: 1, arbitrary: fc.constant<Record<string, string>>({}) },
    { weight: 1, arbitrary: printable(30).map((s) => ({ authorization: basic(client?.clientId ?? 'web-app', s) })) },
    {
      weight: 1,
      arbitrary: fc
        .oneof(
          printable(30).map((s) => `Basic ${s}`),
          printable(30).map((s) => `Bearer ${s}`),
          printable(30),
        )
        .map((a) => ({ authorization: a })),
    },
  );
}

const OTHER_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];
function methodArb(own: string): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant(own) },
    { weight: 1, arbitrary: fc.constantFrom(...OTHER_METHODS) },
  );
}

/** A POST endpoint taking form (or JSON) parameters. */
function postArb(
  endpoint: Kind,
  path: fc.Arbitrary<string>,
  base: Pairs,
  opts: { json?: boolean; auth?: fc.Arbitrary<Record<string, string>>; cookie?: fc.Arbitrary<string | undefined> } = {},
): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      path,
      ops: opsArb(),
      method: methodArb('POST'),
      auth: opts.auth ?? fc.constant({}),
      cookie: opts.cookie ?? fc.constant(undefined),
    })
    .chain(({ path: p, ops, method, auth, cookie }) => {
      const pairs = mutate(base, ops);
      return bodyArb(pairs, opts.json ?? false).map((b): FuzzRequest => {
        const headers: Record<string, string> = {
          ...auth,
          ...(b.contentType ? { 'content-type': b.contentType } : {}),
          ...(cookie ? { cookie } : {}),
        };
        const sendsBody = method !== 'GET' && b.body !== undefined;
        return {
          endpoint,
          method,
          path: p,
          headers,
          ...(sendsBody ? { body: b.body } : {}),
          ...(method === 'GET' ? { query: new URLSearchParams(pairs).toString() } : {}),
          what:
            `${method} ${p} ${b.how} ${JSON.stringify(pairs).slice(0, 300)} ` +
            `${JSON.stringify(headers).slice(0, 200)}`,
        };
      });
    });
}

/** A GET endpoint taking query parameters. */
function getArb(
  endpoint: Kind,
  path: fc.Arbitrary<string>,
  base: Pairs,
  opts: { headers?: fc.Arbitrary<Record<string, string>>; rawQuery?: boolean } = {},
): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      path,
      ops: opsArb(),
      method: methodArb('GET'),
      headers: opts.headers ?? fc.constant({}),
      raw: fc.oneof(
        { weight: 5, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
      ),
    })
    .map(({ path: p, ops, method, headers, raw }): FuzzRequest => {
      const query = raw !== null && opts.rawQuery ? encodeURI(raw) : new URLSearchParams(mutate(base, ops)).toString();
      return {
        endpoint,
        method,
        path: p,
        query,
        headers,
        what: `${method} ${p}?${query.slice(0, 300)} ${JSON.stringify(headers).slice(0, 200)}`,
      };
    });
}

/** A live id or a made-up one (encoded and non-empty: a path segment, so the route stays the same). */
const idArb = (liveId: string) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant(liveId) },
    { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 30 }).map(encodeURIComponent) },
  );
const cookieArb = (liveCookie: string) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant(liveCookie) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.string({ maxLength: 30 }).map((s) => `idpc_interaction=${encodeURIComponent(s)}`) },
  );

// ---- the oracle ---------------------------------------------------------------------------

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

async function send(req: FuzzRequest): Promise<Answer> {
  const url = `${idp.issuer}${req.path}${req.query ? `?${req.query}` : ''}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: req.method,
      headers: req.headers,
      redirect: 'manual',
      signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
      ...(req.body === undefined ? {} : { body: req.body }),
    });
  } catch (error) {
    throw new Error(`no answer within ${ANSWER_WITHIN_MS} ms (${(error as Error).message}) to ${req.what}`);
  }
  return { status: res.status, headers: res.headers, text: await res.text() };
}

function fail(req: FuzzRequest, res: Answer, why: string): never {
  throw new Error(
    `${why}: HTTP ${res.status} ${res.headers.get('content-type') ?? ''} ${JSON.stringify(res.text.slice(0, 300))} ` +
      `for ${req.what}`,
  );
}

function jsonError(req: FuzzRequest, res: Answer, codes: readonly string[]): void {
  if (!/^application\/json\b/.test(res.headers.get('content-type') ?? '')) fail(req, res, 'an error that is not JSON');
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    fail(req, res, 'an error body that does not parse');
  }
  const { error, error_description: description } = (body ?? {}) as Record<string, unknown>;
  if (typeof body !== 'object' || body === null || Array.isArray(body) || typeof error !== 'string')
    fail(req, res, 'an error without an "error" string');
  if (!codes.includes(error)) fail(req, res, `error=${error}, not a registered code for this endpoint`);
  if (description !== undefined && (typeof description !== 'string' || !DESCRIPTION.test(description)))
    fail(req, res, 'an error_description outside the RFC 6749 §5.2 characters');
}

/**
 * Where a page may send the browser: the issuer's own pages, or a registered redirect URI with a code, tokens or an
 * error.
 */
function pageRedirect(req: FuzzRequest, res: Answer): void {
  const location = res.headers.get('location');
  if (!location) fail(req, res, 'a redirect without Location');
  const to = new URL(location, idp.issuer);
  if (to.origin === new URL(idp.issuer).origin) return;
  const registered = [WEB, SPA, LEGACY_CLIENT].flatMap((c) => c.redirectUris);
  if (!registered.includes(`${to.origin}${to.pathname}`))
    fail(req, res, `a redirect to ${to.origin}${to.pathname}, which no client registered`);
  const params = new URLSearchParams(to.hash.length > 1 ? to.hash.slice(1) : to.search);
  const error = params.get('error');
  if (error === null) {
    if (!params.get('code') && !params.get('access_token') && !params.get('id_token'))
      fail(req, res, 'a redirect to the client with neither a result nor an error');
    return;
  }
  if (!AUTHORIZATION_ERRORS.includes(error)) fail(req, res, `an error redirect with error=${error}`);
  const description = params.get('error_description');
  if (description !== null && !DESCRIPTION.test(description))
    fail(req, res, 'an error_description outside the RFC 6749 §4.1.2.1 characters');
}

/** FUZZ_STATS=1 prints what the fuzz reached: endpoint, method, status and error, with counts. */
const seen = new Map<string, number>();
function tally(req: FuzzRequest, res: Answer): void {
  const path = req.path.replace(/\/(interaction|activate)\/[^/]+/, '/$1/:id');
  const error =
    /"error":"(\w+)"|[?#&]error=(\w+)|<code>(\w+)<\/code>/
      .exec(`${res.text} ${res.headers.get('location') ?? ''}`)
      ?.slice(1)
      .find(Boolean) ?? '';
  const key = `${req.endpoint} ${req.method} ${path} ${res.status} ${error}`;
  seen.set(key, (seen.get(key) ?? 0) + 1);
}

async function judge(req: FuzzRequest): Promise<void> {
  const res = await send(req);
  if (process.env.FUZZ_STATS) tally(req, res);
  if (res.status >= 500) fail(req, res, 'a server error');
  if (STACK_TRACE.test(res.text)) fail(req, res, 'a stack trace');
  if (internalErrors.length) fail(req, res, `an internal error (${String(internalErrors[0])})`);
  if (req.method === 'OPTIONS' && (res.status === 200 || res.status === 204)) return;
  if (res.status === 405) return jsonError(req, res, ['invalid_request']);
  if (req.endpoint === 'page') {
    if (res.status === 302 || res.status === 303) return pageRedirect(req, res);
    if (!/^text\/html\b/.test(res.headers.get('content-type') ?? ''))
      fail(req, res, 'a browser-facing answer that is not an HTML page');
    if (res.status !== 200 && !(res.status >= 400 && res.status < 500))
      fail(req, res, 'an unexpected status for a page');
    return;
  }
  if (res.status >= 300 && res.status < 400) fail(req, res, 'a redirect from a JSON endpoint');
  if (res.status >= 200 && res.status < 300) {
    if (res.text && !/^application\/json\b/.test(res.headers.get('content-type') ?? ''))
      fail(req, res, 'a success that is not JSON');
    return;
  }
  // RFC 6750 §3, §3.1: a request without a Bearer token gets the challenge alone, without an error code.
  const challenge = res.headers.get('www-authenticate') ?? '';
  if (req.endpoint === 'userinfo' && res.status === 401 && /^Bearer\b/.test(challenge) && !/\berror=/.test(challenge)) {
    if (/^application\/json\b/.test(res.headers.get('content-type') ?? '')) jsonError(req, res, CODES.userinfo!);
    return;
  }
  jsonError(req, res, CODES[req.endpoint]!);
}

async function fuzz(arbitrary: fc.Arbitrary<FuzzRequest>, runs = RUNS): Promise<void> {
  await fc.assert(fc.asyncProperty(arbitrary, judge), { seed: SEED, numRuns: runs });
}

// ---- the endpoints ------------------------------------------------------------------------

const path = (p: string) => fc.constant(p);

/** Hundreds of requests per test: generous on a loaded 2-core machine (vitest's default of 30 s was hit there). */
const FUZZ_TIMEOUT_MS = 180_000;

describe('fuzzing every endpoint of the reference: no 5xx, no hang, only RFC answers', () => {
  it(
    'discovery and JWKS',
    async () => {
      await fuzz(
        fc.oneof(
          getArb('discovery', path('/.well-known/openid-configuration'), [], { rawQuery: true }),
          getArb('jwks', path('/jwks'), [], { rawQuery: true }),
        ),
        RUNS / 2,
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    '/auth',
    async () => {
      const client = fc.constantFrom(WEB, SPA, LEGACY_CLIENT);
      const responseType = fc.oneof(
        { weight: 4, arbitrary: fc.constant('code') },
        { weight: 1, arbitrary: fc.constantFrom('token', 'id_token token', 'id_token', 'code id_token', 'none') },
      );
      const arbitrary = fc.tuple(client, responseType).chain(([c, responseType]) =>
        getArb(
          'page',
          path('/auth'),
          [
            ['response_type', responseType],
            ['client_id', c.clientId],
            ['redirect_uri', c.redirectUris[0]!],
            ['scope', 'openid profile'],
            ['state', 'st'],
            ['nonce', 'n'],
            ['code_challenge', s256(newVerifier())],
            ['code_challenge_method', 'S256'],
          ],
          { rawQuery: true },
        ),
      );
      await fuzz(arbitrary);
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    'the interaction pages and their login and consent POSTs',
    async () => {
      const { id, cookie } = live.interaction;
      await fuzz(
        fc.oneof(
          getArb(
            'page',
            idArb(id).map((i) => `/interaction/${i}`),
            [],
            { headers: cookieArb(cookie).map((c): Record<string, string> => (c ? { cookie: c } : {})) },
          ),
          postArb(
            'page',
            idArb(id).map((i) => `/interaction/${i}/login`),
            [
              ['username', SEEDED_USER.username],
              ['password', 'wrong-password'],
            ],
            { cookie: cookieArb(cookie) },
          ),
          postArb(
            'page',
            idArb(id).map((i) => `/interaction/${i}/consent`),
            [['decision', 'approve']],
            { cookie: cookieArb(cookie) },
          ),
        ),
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    '/token with every grant',
    async () => {
      const [webCode, spaCode] = live.codes;
      const grants: [Pairs, { clientId: string; clientSecret?: string }][] = [
        [
          [
            ['grant_type', 'authorization_code'],
            ['code', webCode!.code],
            ['redirect_uri', WEB.redirectUris[0]!],
            ['code_verifier', webCode!.verifier],
          ],
          WEB,
        ],
        [
          [
            ['grant_type', 'authorization_code'],
            ['code', spaCode!.code],
            ['redirect_uri', SPA.redirectUris[0]!],
            ['code_verifier', spaCode!.verifier],
            ['client_id', SPA.clientId],
          ],
          SPA,
        ],
        [
          [
            ['grant_type', 'refresh_token'],
            ['refresh_token', live.refreshToken],
            ['scope', 'openid'],
          ],
          WEB,
        ],
        [
          [
            ['grant_type', 'client_credentials'],
            ['scope', 'api:read'],
          ],
          MACHINE,
        ],
        [
          [
            ['grant_type', DEVICE_GRANT],
            ['device_code', live.deviceCode],
            ['client_id', TV.clientId],
          ],
          TV,
        ],
        [
          [
            ['grant_type', EXCHANGE_GRANT],
            ['subject_token', live.ccToken],
            ['subject_token_type', ACCESS_TOKEN_TYPE],
            ['requested_token_type', ACCESS_TOKEN_TYPE],
            ['scope', 'api:read'],
          ],
          EXCHANGER,
        ],
        [
          [
            ['grant_type', 'password'],
            ['username', SEEDED_USER.username],
            ['password', SEEDED_USER.password],
            ['scope', 'openid'],
          ],
          LEGACY_CLIENT,
        ],
        [
          [
            ['grant_type', 'urn:example:unknown'],
            ['x', 'y'],
          ],
          WEB,
        ],
      ];
      const arbitrary = fc
        .constantFrom(...grants)
        .chain(([base, client]) => postArb('token', path('/token'), base, { json: true, auth: authArb(client) }));
      await fuzz(arbitrary, RUNS * 2);
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    'device authorization and the activation pages',
    async () => {
      const { id, cookie } = live.activation;
      const withCookie = cookieArb(cookie);
      await fuzz(
        fc.oneof(
          postArb(
            'device',
            path('/device/auth'),
            [
              ['client_id', TV.clientId],
              ['scope', 'openid offline_access'],
            ],
            { auth: authArb() },
          ),
          getArb('page', path('/activate'), [['user_code', live.userCode]], { rawQuery: true }),
          postArb('page', path('/activate'), [['user_code', live.userCode]]),
          getArb(
            'page',
            idArb(id).map((i) => `/activate/${i}`),
            [],
            { headers: withCookie.map((c): Record<string, string> => (c ? { cookie: c } : {})) },
          ),
          postArb(
            'page',
            idArb(id).map((i) => `/activate/${i}/login`),
            [
              ['username', SEEDED_USER.username],
              ['password', 'wrong-password'],
            ],
            { cookie: withCookie },
          ),
          postArb(
            'page',
            idArb(id).map((i) => `/activate/${i}/consent`),
            [['decision', 'deny']],
            { cookie: withCookie },
          ),
        ),
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    'userinfo',
    async () => {
      const bearer = fc.oneof(
        {
          weight: 3,
          arbitrary: fc
            .constantFrom(live.accessToken, live.ccToken, live.idToken, live.refreshToken)
            .map((t) => ({ authorization: `Bearer ${t}` })),
        },
        { weight: 2, arbitrary: oddJwt.map((t) => ({ authorization: `Bearer ${t}` })) },
        { weight: 2, arbitrary: authArb(WEB) },
      );
      await fuzz(
        fc.oneof(
          getArb('userinfo', path('/userinfo'), [], { headers: bearer, rawQuery: true }),
          postArb('userinfo', path('/userinfo'), [['access_token', live.accessToken]], { auth: bearer }),
        ),
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    'introspection and revocation',
    async () => {
      const tokens = [live.accessToken, live.refreshToken, live.ccToken, live.idToken];
      const base = (token: string): Pairs => [
        ['token', token],
        ['token_type_hint', 'access_token'],
      ];
      await fuzz(
        fc
          .constantFrom(...tokens)
          .chain((token) =>
            fc.oneof(
              postArb('introspection', path('/introspect'), base(token), { auth: authArb(WEB) }),
              postArb('revocation', path('/revoke'), base(token), { auth: fc.oneof(authArb(WEB), authArb(MACHINE)) }),
            ),
          ),
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  it('the server still answers afterwards, and still runs a whole flow', async () => {
    const discovery = await idp.get('/.well-known/openid-configuration');
    expect(discovery.status).toBe(200);
    const tokens = await idp.tokensFor(WEB, { scope: 'openid offline_access' });
    expect(typeof tokens.access_token).toBe('string');
    const refreshed = await idp.refresh(String(tokens.refresh_token), WEB);
    expect(refreshed.status).toBe(200);
    expect(internalErrors).toEqual([]);
  });
});
