/**
 * Redaction of secrets and tokens in everything a run reports. Two ways, both always on:
 * - by value: every secret from the config and every token or code seen in traffic is replaced
 *   wherever it appears (in any encoding a transcript may show: raw, URL-encoded, JSON, Basic);
 * - by field name: request and response fields, query parameters and headers that carry
 *   credentials are replaced even when their value was never seen before, and so are the private
 *   members of any JWK (an object with kty), so a JWKS that leaks its private keys is not leaked again.
 * A value keeps a stable label (`[REDACTED:access_token:2]`), so a reader can still tell that
 * two transcripts show the same token.
 */
import type { Evidence, HttpEvidence, ScenarioResult } from './results.ts';

export const SECRET_FIELDS = new Set([
  'client_secret', 'password', 'code', 'code_verifier', 'access_token', 'refresh_token', 'id_token',
  'device_code', 'user_code', 'subject_token', 'actor_token', 'token', 'assertion', 'client_assertion',
]);
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);
/** Private and symmetric key members of a JWK (RFC 7518 §6.2.2, §6.3.2, §6.4; RFC 8037 §2): secret only inside a JWK (an object with kty). */
const PRIVATE_JWK_MEMBERS = new Set(['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k']);

const isJwk = (value: object): boolean => typeof (value as { kty?: unknown }).kty === 'string';

/** The strings a private JWK member holds (oth is an array of objects of them). */
function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(stringsIn);
  return [];
}
/** Shorter values are only redacted by field name: replacing them everywhere would garble text. */
const MIN_VALUE_LENGTH = 6;

function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}

function htmlEscape(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

export class Redactor {
  readonly #labels = new Map<string, string>();
  readonly #counts = new Map<string, number>();
  #pattern: RegExp | undefined;

  constructor(secrets: Iterable<string | { value: string; kind: string }> = []) {
    for (const s of secrets) {
      if (typeof s === 'string') this.add(s, 'secret');
      else this.add(s.value, s.kind);
    }
  }

  /** Register a secret value; `kind` names it in the label. Returns the label. */
  add(value: string, kind = 'secret'): string {
    if (isLabel(value)) return value;
    const known = this.#labels.get(value);
    if (known) return known;
    const n = (this.#counts.get(kind) ?? 0) + 1;
    this.#counts.set(kind, n);
    const label = `[REDACTED:${kind}:${n}]`;
    if (value.length < MIN_VALUE_LENGTH) return label;
    for (const variant of new Set([value, encodeURIComponent(value), formEncode(value), JSON.stringify(value).slice(1, -1), htmlEscape(value)])) {
      if (!this.#labels.has(variant)) this.#labels.set(variant, label);
    }
    this.#pattern = undefined;
    return label;
  }

  /** Replace every known secret in a text. */
  text(input: string): string {
    if (this.#labels.size === 0) return input;
    this.#pattern ??= new RegExp(
      [...this.#labels.keys()].sort((a, b) => b.length - a.length).map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'),
      'g',
    );
    return input.replace(this.#pattern, (m) => this.#labels.get(m) ?? '[REDACTED]');
  }

  /** Learn the secrets a request or response carries (before anything is redacted). */
  observe(e: HttpEvidence): void {
    this.#observeHeaders(e.request.headers);
    this.#observeBody(e.request.body);
    this.#observeUrl(e.request.url);
    if (e.response) {
      this.#observeBody(e.response.body);
      const location = e.response.headers.location;
      if (location) this.#observeUrl(location, e.request.url);
      const cookies = e.response.headers['set-cookie'];
      if (cookies) for (const c of cookies.split(/,(?=\s*[^;,=\s]+=)/)) this.#observeCookie(c);
    }
  }

  #observeHeaders(headers: Record<string, string>): void {
    const auth = headers.authorization;
    if (auth) {
      const [scheme, credentials = ''] = auth.split(/\s+/, 2);
      if (/^basic$/i.test(scheme ?? '')) {
        const decoded = Buffer.from(credentials, 'base64').toString();
        const secret = decoded.slice(decoded.indexOf(':') + 1);
        if (secret) this.add(decodeURIComponentSafe(secret.replace(/\+/g, ' ')), 'client_secret');
        this.add(credentials, 'client_secret');
      } else if (credentials) {
        this.add(credentials, 'access_token');
      }
    }
    if (headers.cookie) for (const c of headers.cookie.split(';')) this.#observeCookie(c);
  }

  #observeCookie(cookie: string): void {
    const value = cookie.split(';')[0]?.split('=').slice(1).join('=').trim();
    if (value) this.add(value, 'cookie');
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
    const json = tryJson(body);
    if (json !== undefined) {
      this.#observeJson(json);
    } else if (/^[\w.%+~-]+=[^<>\s]*(&|$)/.test(body)) {
      this.#observeFields(new URLSearchParams(body));
    }
  }

  #observeJson(value: unknown): void {
    if (Array.isArray(value)) value.forEach((v) => this.#observeJson(v));
    else if (value && typeof value === 'object') {
      const jwk = isJwk(value);
      for (const [k, v] of Object.entries(value)) {
        if (SECRET_FIELDS.has(k) && typeof v === 'string') this.add(v, k);
        else if (jwk && PRIVATE_JWK_MEMBERS.has(k)) for (const secret of stringsIn(v)) this.add(secret, 'private_key');
        else this.#observeJson(v);
      }
    }
  }

  #observeFields(params: URLSearchParams): void {
    for (const [k, v] of params) if (SECRET_FIELDS.has(k) && v) this.add(v, k);
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
          /^(path|domain|expires|max-age|samesite|secure|httponly)$/i.test(key) ? m : `${pre}${key}=[REDACTED:cookie]`);
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
    const json = tryJson(body);
    if (json !== undefined && typeof json === 'object' && json !== null) {
      return this.text(JSON.stringify(this.#redactJson(json), null, 2));
    }
    if (/^[\w.%+~-]+=[^<>\s]*(&|$)/.test(body)) return this.#redactForm(body);
    return this.text(body.replace(/(<input\b[^>]*\bname=["']?(?:code|id_token|access_token|token)["']?[^>]*\bvalue=)(["'])[^"']*\2/gi, '$1$2[REDACTED:form-value]$2'));
  }

  #redactForm(form: string): string {
    return form.split('&').map((pair) => {
      const [k = '', ...rest] = pair.split('=');
      const key = decodeURIComponentSafe(k.replace(/\+/g, ' '));
      if (SECRET_FIELDS.has(key) && rest.length) {
        const value = decodeURIComponentSafe(rest.join('=').replace(/\+/g, ' '));
        return `${k}=${this.add(value, key)}`;
      }
      return this.text(pair);
    }).join('&');
  }

  #redactJson(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((v) => this.#redactJson(v));
    if (value && typeof value === 'object') {
      const jwk = isJwk(value);
      return Object.fromEntries(Object.entries(value).map(([k, v]) => {
        if (SECRET_FIELDS.has(k) && typeof v === 'string') return [k, this.add(v, k)];
        if (jwk && PRIVATE_JWK_MEMBERS.has(k)) return [k, this.#replaceStrings(v, (s) => this.add(s, 'private_key'))];
        return [k, this.#redactJson(v)];
      }));
    }
    return typeof value === 'string' ? this.text(value) : value;
  }

  #replaceStrings(value: unknown, replace: (s: string) => string): unknown {
    if (typeof value === 'string') return replace(value);
    if (Array.isArray(value)) return value.map((v) => this.#replaceStrings(v, replace));
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.#replaceStrings(v, replace)]));
    }
    return value;
  }

  evidence(e: Evidence): Evidence {
    if (e.kind === 'http') return this.http(e);
    return this.#deep(e) as Evidence;
  }

  /** A result with everything in it redacted (idempotent). */
  result(r: ScenarioResult): ScenarioResult {
    const { evidence, ...rest } = r;
    return { ...(this.#deep(rest) as Omit<ScenarioResult, 'evidence'>), evidence: evidence.map((e) => this.evidence(e)) };
  }

  #deep(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return value.map((v) => this.#deep(v));
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.#deep(v)]));
    }
    return value;
  }
}

const isLabel = (value: string) => /^\[REDACTED(:[\w-]+)*\]$/.test(value);

function tryJson(text: string): unknown {
  const t = text.trimStart();
  if (!t.startsWith('{') && !t.startsWith('[')) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
