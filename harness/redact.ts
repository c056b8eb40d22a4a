/**
 * Redaction of secrets and tokens in everything a run reports. Two ways, both always on:
 * - by value: every secret from the config and every token or code seen in traffic is replaced
 *   wherever it appears (in any encoding a transcript may show: raw, URL-encoded, JSON, Basic);
 * - by field name: request and response fields, query parameters and headers that carry
 *   credentials are replaced even when their value was never seen before (in a JSON body, a member
 *   named `code` or `token` only when its value is shaped like a credential: see WORD_FIELDS), and so are the private
 *   members of any JWK (an object with kty), so a JWKS that leaks its private keys is not leaked again.
 * A value keeps a stable label (`[REDACTED:access_token:2]`), so a reader can still tell that
 * two transcripts show the same token.
 *
 * Inside what is encoded (docs/security.md, "Tokens inside encoded structures"): a JWT in any text (a request object
 * in a URL, a DPoP proof, a forged ID token) is decoded, and when its header or payload holds a secret (a learned token
 * as id_token_hint, a member named like a credential, a private JWK member) or its signature is, or nearly is, the
 * signature of a learned JWT (a forgery that keeps it would give the token back), it is shown decoded with those values
 * masked and without its signature: `JWT(header {…}, payload {…}, signature [REDACTED:id_token-signature:1])`.
 *
 * Against a hostile target (docs/security.md): values are learned only from what the target sent (response
 * bodies, Location, Set-Cookie) and the config, never from what the harness sent (its probes and
 * forged tokens stay readable; an echo of a request value in its own response is not learned);
 * values shorter than 8 characters are redacted by field name only; at most
 * MAX_LEARNED_PER_MESSAGE values are learned from one response; replacing is a linear scan (no
 * regular expression built from secrets, so no pattern can be too large or be printed); and a
 * result's own words (id, status, level, area, severity, counts, requirements) are never touched —
 * only target-supplied text is (messages, logs, evidence).
 */
import { PRIVATE_JWK_MEMBERS as PRIVATE_MEMBERS, privateJwkStrings } from '../protocol/jwk.ts';
import { parseJsonBounded } from './limits.ts';
import type { Evidence, HttpEvidence, Outage, ScenarioResult } from './results.ts';

export const SECRET_FIELDS = new Set([
  'client_secret',
  'password',
  'code',
  'code_verifier',
  'access_token',
  'refresh_token',
  'id_token',
  'device_code',
  'user_code',
  'subject_token',
  'actor_token',
  'token',
  'assertion',
  'client_assertion',
  // RFC 7592 §3: the Bearer token of a registered client's configuration endpoint.
  'registration_access_token',
]);
/**
 * Secret field names that are also ordinary words in a JSON body (`{"code": "MISSING_OR_NULL_ORIGIN"}`,
 * an error's code; `{"token": "expired"}`): there a member so named is masked only for its value —
 * one learned (a code from an authorization response, a token from a token response) or one shaped
 * like a credential (credentialShaped) — never for its name. In URLs and forms they stay secret by name.
 */
const WORD_FIELDS = new Set(['code', 'token']);

/**
 * A value that is a credential by its form: a JWT or JWE, or 16 characters or more of a token
 * alphabet (base64url, base64, hex) with a digit in it that is not words joined by `_`, `-`, `.`
 * (an error code such as ERR_TOKEN_42 or invalid-grant-2 is not one).
 */
export function credentialShaped(value: string): boolean {
  if (/^[\w-]+(\.[\w-]+){2}$|^[\w-]+(\.[\w-]*){4}$/.test(value) && value.length >= 24) return true;
  if (value.length < 16 || !/^[A-Za-z0-9+/=_.~-]+$/.test(value) || !/\d/.test(value)) return false;
  return !/^[A-Za-z]+\d*([_.-][A-Za-z]+\d*)*$/.test(value);
}

/** Whether the JSON member `name` holding the string `value` is secret by its name. */
function secretMember(name: string, value: string): boolean {
  return SECRET_FIELDS.has(name) && (!WORD_FIELDS.has(name) || credentialShaped(value));
}
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);
/** Private and symmetric key members of a JWK (protocol/jwk.ts): secret only inside a JWK (an object with kty). */
const PRIVATE_JWK_MEMBERS = new Set<string>(PRIVATE_MEMBERS);

/** Every string a JSON value holds, at any depth. */
function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(stringsIn);
  return [];
}

const isJwk = (value: object): boolean => typeof (value as { kty?: unknown }).kty === 'string';

/**
 * Shorter values are only redacted by field name: replacing them everywhere would garble text (a
 * target could issue the token "failed"). The config refuses secrets shorter than this.
 */
export const MIN_SECRET_LENGTH = 8;
/**
 * At most this many new values are learned from one response: a body of a million tokens does not grow the redactor
 * without bound.
 */
export const MAX_LEARNED_PER_MESSAGE = 256;

function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}

function htmlEscape(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

export class Redactor {
  /** Every redacted-by-value variant (raw, URL-, form-, JSON-, HTML-encoded) → its label. */
  readonly #labels = new Map<string, string>();
  /** The variants by a hash of their first MIN_SECRET_LENGTH characters, longest first: the linear scan's index. */
  readonly #byPrefix = new Map<number, string[]>();
  /** Labels of values redacted by field name only (too short, or sent by the harness): never replaced in free text. */
  readonly #fieldLabels = new Map<string, string>();
  readonly #counts = new Map<string, number>();
  /** Configured secrets too short to find in free text: masked wherever one is a whole form field or JSON value. */
  readonly #short = new Set<string>();
  /** While observing one response: values the request carried (an echo is not learned) and the learning budget. */
  #echo: ReadonlySet<string> = new Set();
  #budget = Infinity;
  /**
   * The signatures of learned JWTs by length and first (or last) SIGNATURE_PROBE characters → their label: a forged
   * copy whose signature differs in a bit or two still shares one end.
   */
  readonly #signatures = new Map<string, string>();

  constructor(secrets: Iterable<string | { value: string; kind: string }> = []) {
    for (const s of secrets) {
      if (typeof s === 'string') this.add(s, 'secret');
      else this.add(s.value, s.kind);
    }
  }

  #newLabel(kind: string): string {
    const n = (this.#counts.get(kind) ?? 0) + 1;
    this.#counts.set(kind, n);
    return `[REDACTED:${kind}:${n}]`;
  }

  /**
   * Register a secret value, redacted wherever it appears from now on; `kind` names it in the label. Returns the label.
   */
  add(value: string, kind = 'secret'): string {
    if (isLabel(value)) return value;
    const known = this.#labels.get(value);
    if (known) return known;
    if (value.length < MIN_SECRET_LENGTH) {
      this.#short.add(value);
      return this.#fieldLabel(value, kind);
    }
    const label = this.#fieldLabels.get(value) ?? this.#newLabel(kind);
    this.#fieldLabels.delete(value);
    this.#addSignature(value, kind);
    for (const variant of new Set([
      value,
      encodeURIComponent(value),
      formEncode(value),
      JSON.stringify(value).slice(1, -1),
      htmlEscape(value),
    ])) {
      if (this.#labels.has(variant)) continue;
      this.#labels.set(variant, label);
      const prefix = windowHash(variant, 0);
      const list = this.#byPrefix.get(prefix);
      if (!list) this.#byPrefix.set(prefix, [variant]);
      else {
        list.push(variant);
        list.sort((a, b) => b.length - a.length);
      }
    }
    return label;
  }

  /** A JWS's signature, masked wherever it appears: a forged copy that keeps it would give the token back. */
  #addSignature(value: string, kind: string): void {
    const m = JWS_SHAPE.exec(value);
    const signature = m?.[3];
    if (!signature || signature.length < MIN_SIGNATURE_LENGTH || kind.endsWith('-signature')) return;
    const label = this.add(signature, `${kind}-signature`);
    const len = signature.length;
    this.#signatures.set(`${len}<${signature.slice(0, SIGNATURE_PROBE)}`, label);
    this.#signatures.set(`${len}>${signature.slice(-SIGNATURE_PROBE)}`, label);
  }

  /** The label of the learned signature `signature` is, or nearly is (one end the same), or undefined. */
  #signatureLabel(signature: string): string | undefined {
    if (signature.length < MIN_SIGNATURE_LENGTH) return undefined;
    const len = signature.length;
    return (
      this.#labels.get(signature) ??
      this.#signatures.get(`${len}<${signature.slice(0, SIGNATURE_PROBE)}`) ??
      this.#signatures.get(`${len}>${signature.slice(-SIGNATURE_PROBE)}`)
    );
  }

  /**
   * Every JWT in `input` that carries a secret (in its header or payload, or as its signature) shown decoded with the
   * secrets masked; the others, and learned tokens (masked whole by value), as they are.
   */
  #jwts(input: string, depth: number): string {
    if (depth > MAX_JWT_NESTING || !input.includes('eyJ')) return input;
    let budget = MAX_JWTS_PER_TEXT;
    return input.replace(JWT_IN_TEXT, (jwt: string, h: string, p: string, sig: string) => {
      if (this.#labels.has(jwt) || jwt.length > MAX_JWT_CHARS || budget-- <= 0) return jwt;
      const header = decodeSegment(h);
      const payload = decodeSegment(p);
      if (header === undefined || payload === undefined) return jwt;
      const maskedHeader = JSON.stringify(this.#redactJson(header, depth + 1));
      const maskedPayload = JSON.stringify(this.#redactJson(payload, depth + 1));
      const signatureLabel = this.#signatureLabel(sig);
      if (!signatureLabel && maskedHeader === JSON.stringify(header) && maskedPayload === JSON.stringify(payload))
        return jwt;
      const signature = signatureLabel ?? (sig ? `(${Buffer.from(sig, 'base64url').length} bytes, not shown)` : 'none');
      return `JWT(header ${maskedHeader}, payload ${maskedPayload}, signature ${signature})`;
    });
  }

  /** A label for a value found in a secret field but not learned (too short, or sent by the harness). */
  #fieldLabel(value: string, kind: string): string {
    if (isLabel(value)) return value;
    const known = this.#labels.get(value) ?? this.#fieldLabels.get(value);
    if (known) return known;
    const label = this.#newLabel(kind);
    this.#fieldLabels.set(value, label);
    return label;
  }

  /**
   * Learn a value the target sent, within the budget of the response being observed and unless it echoes the request.
   */
  #learn(value: string, kind: string): void {
    if (value.length < MIN_SECRET_LENGTH || this.#labels.has(value) || this.#echo.has(value)) return;
    if (this.#budget <= 0) return;
    this.#budget--;
    this.add(value, kind);
  }

  /**
   * Learn the response parameters of an authorization response the harness caught (e.g. a redirect the browser never
   * loaded).
   */
  learnIssued(fields: Record<string, string>): void {
    for (const [k, v] of Object.entries(fields)) if (SECRET_FIELDS.has(k) && v) this.#learn(v, k);
  }

  /**
   * Replace every known secret in a text: one left-to-right scan with a rolling hash of the next
   * MIN_SECRET_LENGTH characters (linear in the text, whatever the number and length of the
   * secrets), the longest secret at each position.
   */
  text(input: string, depth = 0): string {
    if (this.#labels.size === 0 || input.length < MIN_SECRET_LENGTH) return input;
    input = this.#jwts(input, depth);
    let out = '';
    let copied = 0;
    let h = windowHash(input, 0);
    for (let i = 0; i + MIN_SECRET_LENGTH <= input.length; ) {
      const candidates = this.#byPrefix.get(h);
      const hit = candidates?.find((c) => input.startsWith(c, i));
      if (hit === undefined) {
        if (i + MIN_SECRET_LENGTH < input.length)
          h = rollHash(h, input.charCodeAt(i), input.charCodeAt(i + MIN_SECRET_LENGTH));
        i++;
        continue;
      }
      out += input.slice(copied, i) + this.#labels.get(hit)!;
      i += hit.length;
      copied = i;
      if (i + MIN_SECRET_LENGTH <= input.length) h = windowHash(input, i);
    }
    return copied === 0 ? input : out + input.slice(copied);
  }

  /**
   * Learn the secrets an exchange carries (before anything is redacted): the client secret of a
   * Basic header, and what the target sent — tokens and codes in the response body, Location and
   * Set-Cookie. Nothing else the harness sent is learned (its probes and forged tokens stay readable).
   */
  observe(e: HttpEvidence): void {
    this.#observeHeaders(e.request.headers);
    if (!e.response) return;
    this.#echo = requestValues(e);
    this.#budget = MAX_LEARNED_PER_MESSAGE;
    try {
      this.#observeBody(e.response.body);
      const location = e.response.headers.location;
      if (location) this.#observeUrl(location, e.request.url);
      const cookies = e.response.headers['set-cookie'];
      if (cookies) for (const c of cookies.split(/,(?=\s*[^;,=\s]+=)/)) this.#observeCookie(c);
    } finally {
      this.#echo = new Set();
      this.#budget = Infinity;
    }
  }

  #observeHeaders(headers: Record<string, string>): void {
    const auth = headers.authorization;
    if (!auth) return;
    const [scheme, credentials = ''] = auth.split(/\s+/, 2);
    if (/^basic$/i.test(scheme ?? '')) {
      const decoded = Buffer.from(credentials, 'base64').toString();
      const secret = decoded.slice(decoded.indexOf(':') + 1);
      if (secret) this.add(decodeURIComponentSafe(secret.replace(/\+/g, ' ')), 'client_secret');
      this.add(credentials, 'client_secret');
    }
  }

  #observeCookie(cookie: string): void {
    const value = cookie.split(';')[0]?.split('=').slice(1).join('=').trim();
    if (value) this.#learn(value, 'cookie');
  }

  #observeUrl(url: string, base?: string): void {
    try {
      const u = new URL(url, base);
      this.#observeFields(u.searchParams);
      this.#observeFields(new URLSearchParams(u.hash.slice(1)));
    } catch {
      // not a URL: nothing to learn
    }
  }

  #observeBody(body: string | undefined): void {
    if (!body) return;
    const json = boundedJson(body);
    if (json !== undefined) {
      this.#observeJson(json);
    } else if (/^[\w.%+~-]+=[^<>\s]*(&|$)/.test(body)) {
      this.#observeFields(new URLSearchParams(body));
    }
  }

  #observeJson(value: unknown): void {
    if (Array.isArray(value)) for (const v of value) this.#observeJson(v);
    else if (value && typeof value === 'object') {
      const jwk = isJwk(value);
      if (jwk)
        for (const secret of privateJwkStrings(value as Record<string, unknown>)) this.#learn(secret, 'private_key');
      for (const [k, v] of Object.entries(value)) {
        if (typeof v === 'string' && secretMember(k, v)) this.#learn(v, k);
        else if (!(jwk && PRIVATE_JWK_MEMBERS.has(k))) this.#observeJson(v);
      }
    }
  }

  #observeFields(params: URLSearchParams): void {
    for (const [k, v] of params) if (SECRET_FIELDS.has(k) && v) this.#learn(v, k);
  }

  /** Redact one HTTP transcript: by field name, then by value. */
  http(e: HttpEvidence): HttpEvidence {
    const out: HttpEvidence = {
      ...e,
      request: {
        ...e.request,
        url: this.url(e.request.url),
        headers: this.headers(e.request.headers),
        ...(e.request.body === undefined ? {} : { body: this.body(e.request.body) }),
      },
    };
    if (e.response) {
      out.response = {
        ...e.response,
        headers: this.headers(e.response.headers),
        ...(e.response.body === undefined ? {} : { body: this.body(e.response.body) }),
      };
    }
    if (e.error) out.error = this.text(e.error);
    if (e.label) out.label = this.text(e.label);
    return out;
  }

  headers(headers: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) {
      const lower = name.toLowerCase();
      if (lower === 'location') out[name] = this.url(value);
      else if (!SECRET_HEADERS.has(lower)) out[name] = this.text(value);
      else if (lower === 'authorization' || lower === 'proxy-authorization') {
        const scheme = value.split(/\s+/)[0] ?? '';
        out[name] = `${scheme} [REDACTED:credentials]`;
      } else {
        out[name] = this.text(value).replace(/(^|[;,]\s*)([^=;,\s]+)=([^;,]*)/g, (m, pre: string, key: string) =>
          /^(path|domain|expires|max-age|samesite|secure|httponly)$/i.test(key) ? m : `${pre}${key}=[REDACTED:cookie]`,
        );
      }
    }
    return out;
  }

  url(url: string): string {
    const q = url.indexOf('?');
    const h = url.indexOf('#');
    if (q < 0 && h < 0) return this.text(url);
    const cut = Math.min(...[q, h].filter((i) => i >= 0));
    const params = (s: string) => (/=/.test(s) ? this.#redactForm(s) : this.text(s));
    let out = this.text(url.slice(0, cut));
    if (q >= 0) out += `?${params(url.slice(q + 1, h > q ? h : undefined))}`;
    if (h >= 0) out += `#${params(url.slice(h + 1))}`;
    return out;
  }

  body(body: string): string {
    const json = boundedJson(body);
    if (json !== undefined && typeof json === 'object' && json !== null) {
      return this.text(JSON.stringify(this.#redactJson(json), null, 2));
    }
    if (/^[\w.%+~-]+=[^<>\s]*(&|$)/.test(body)) return this.#redactForm(body);
    return this.text(
      body.replace(
        new RegExp(
          String.raw`(<input\b[^>]{0,2000}?\bname=["']?(?:code|id_token|access_token|token)["']?` +
            String.raw`[^>]{0,2000}?\bvalue=)(["'])[^"']*\2`,
          'gi',
        ),
        '$1$2[REDACTED:form-value]$2',
      ),
    );
  }

  #redactForm(form: string): string {
    return form
      .split('&')
      .map((pair) => {
        const [k = '', ...rest] = pair.split('=');
        const key = decodeURIComponentSafe(k.replace(/\+/g, ' '));
        const value = decodeURIComponentSafe(rest.join('=').replace(/\+/g, ' '));
        if (rest.length && (SECRET_FIELDS.has(key) || this.#short.has(value)))
          return `${k}=${this.#fieldLabel(value, this.#short.has(value) ? 'secret' : key)}`;
        return this.text(pair);
      })
      .join('&');
  }

  #redactJson(value: unknown, depth = 0): unknown {
    if (Array.isArray(value)) return value.map((v) => this.#redactJson(v, depth));
    if (value && typeof value === 'object') {
      const jwk = isJwk(value);
      return Object.fromEntries(
        Object.entries(value).map(([k, v]) => {
          if (typeof v === 'string' && secretMember(k, v)) return [k, this.#fieldLabel(v, k)];
          if (typeof v === 'string' && this.#short.has(v)) return [k, this.#fieldLabel(v, 'secret')];
          if (jwk && PRIVATE_JWK_MEMBERS.has(k))
            return [k, this.#replaceStrings(v, (s) => this.#fieldLabel(s, 'private_key'))];
          return [k, this.#redactJson(v, depth)];
        }),
      );
    }
    return typeof value === 'string' ? this.text(value, depth) : value;
  }

  #replaceStrings(value: unknown, replace: (s: string) => string): unknown {
    if (typeof value === 'string') return replace(value);
    if (Array.isArray(value)) return value.map((v) => this.#replaceStrings(v, replace));
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.#replaceStrings(v, replace)]));
    }
    return value;
  }

  /** An outage's target-supplied text (the URL sent to, the transport's words) redacted. */
  outage(o: Outage): Outage {
    return { ...o, lastSent: this.text(o.lastSent), cause: this.text(o.cause) };
  }

  evidence(e: Evidence): Evidence {
    switch (e.kind) {
      case 'http':
        return this.http(e);
      case 'note':
        return { ...e, text: this.text(e.text), ...(e.label === undefined ? {} : { label: this.text(e.label) }) };
      case 'counterexample':
        return { ...e, value: this.text(e.value), ...(e.label === undefined ? {} : { label: this.text(e.label) }) };
      case 'screenshot':
        return e.label === undefined ? e : { ...e, label: this.text(e.label) };
    }
  }

  /**
   * A result with its target-supplied text redacted (idempotent): the message, the skip reason, findings, the log,
   * the pages of the login walks and the evidence. The harness's own words — id, title, area, status, severity,
   * level, requirements, counts — are never touched, whatever the target sent.
   */
  result(r: ScenarioResult): ScenarioResult {
    return {
      ...r,
      ...(r.message === undefined ? {} : { message: this.text(r.message) }),
      ...(r.skipReason === undefined ? {} : { skipReason: this.text(r.skipReason) }),
      ...(r.findings ? { findings: r.findings.map((f) => ({ ...f, message: this.text(f.message) })) } : {}),
      ...(r.log ? { log: r.log.map((l) => this.text(l)) } : {}),
      ...(r.walks
        ? {
            walks: r.walks.map((w) =>
              w.switched
                ? {
                    ...w,
                    switched: {
                      ...w.switched,
                      url: this.url(w.switched.url),
                      page: this.text(w.switched.page),
                      reason: this.text(w.switched.reason),
                    },
                  }
                : w,
            ),
          }
        : {}),
      evidence: r.evidence.map((e) => this.evidence(e)),
    };
  }
}

/**
 * Every value a request carried (URL parameters, form or JSON fields): its response echoing one is not the target's
 * secret.
 */
function requestValues(e: HttpEvidence): Set<string> {
  const out = new Set<string>();
  const addParams = (p: URLSearchParams) => {
    for (const [, v] of p) if (v.length >= MIN_SECRET_LENGTH) out.add(v);
  };
  try {
    const u = new URL(e.request.url);
    addParams(u.searchParams);
  } catch {
    // not a URL
  }
  const body = e.request.body;
  if (body) {
    const json = boundedJson(body);
    if (json !== undefined)
      for (const v of stringsIn(json)) {
        if (v.length >= MIN_SECRET_LENGTH) out.add(v);
      }
    else if (/^[\w.%+~-]+=/.test(body)) addParams(new URLSearchParams(body));
  }
  return out;
}

/** Polynomial hash (base 31, 32-bit) of the MIN_SECRET_LENGTH characters of `text` from `at`. */
const BASE = 31;
const TOP = (() => {
  let p = 1;
  for (let k = 1; k < MIN_SECRET_LENGTH; k++) p = Math.imul(p, BASE);
  return p;
})();
function windowHash(text: string, at: number): number {
  let h = 0;
  for (let k = 0; k < MIN_SECRET_LENGTH; k++) h = (Math.imul(h, BASE) + text.charCodeAt(at + k)) | 0;
  return h;
}
/** The hash of the window one character further: `out` leaves it, `next` enters. */
function rollHash(h: number, out: number, next: number): number {
  return (Math.imul((h - Math.imul(out, TOP)) | 0, BASE) + next) | 0;
}

/** A compact JWS: three base64url segments, the last possibly empty (an unsecured JWT). */
const JWS_SHAPE = /^([\w-]+)\.([\w-]+)\.([\w-]*)$/;
/** A JWT in text: its header is a JSON object, so it starts with eyJ (base64url of `{"`). */
const JWT_IN_TEXT = /(?<![\w.-])(eyJ[\w-]*)\.([\w-]+)\.([\w-]*)(?![\w.-])/g;
/** Shorter signatures are not masked as such (an HMAC's is 43 characters or more). */
const MIN_SIGNATURE_LENGTH = 16;
/** The characters at each end of a signature by which a near copy is recognised. */
const SIGNATURE_PROBE = 16;
/** How deep JWTs inside JWTs are decoded; a JWT longer than this is left to redaction by value. */
const MAX_JWT_NESTING = 3;
const MAX_JWT_CHARS = 256 * 1024;
/**
 * JWTs decoded in one text: the harness's own requests carry a few; a response body of 50,000 small JWTs would
 * otherwise cost seconds at each redaction. Those past it are redacted by value only.
 */
const MAX_JWTS_PER_TEXT = 1_000;

/** A base64url segment decoded as a JSON object or array (bounded), else undefined. */
function decodeSegment(segment: string): unknown {
  const json = boundedJson(Buffer.from(segment, 'base64url').toString('utf8'));
  return json !== null && typeof json === 'object' ? json : undefined;
}

const isLabel = (value: string) => /^\[REDACTED(:[\w-]+)*\]$/.test(value);

/** The text as JSON when it is an object or array no deeper than the harness reads, else undefined. */
function boundedJson(text: string): unknown {
  const t = text.trimStart();
  if (!t.startsWith('{') && !t.startsWith('[')) return undefined;
  return parseJsonBounded(text);
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
