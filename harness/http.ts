/**
 * The HTTP client scenarios use. It never follows redirects, records every exchange as evidence
 * (the Redactor learns the secrets in it on the way), sends token requests in the configured
 * encoding with the client's authentication method, and turns transport failures into
 * TargetUnreachableError (an `error` result, never a target failure).
 */
import type { Evidence, HttpEvidence } from './results.ts';
import type { AuthMethod, Client } from './config.ts';
import { HarnessError, TargetUnreachableError } from './failures.ts';
import type { Redactor } from './redact.ts';

const MAX_BODY = 32_000;

/** Collects a scenario's evidence; every HTTP exchange passes through the redactor's `observe`. */
export class Recorder {
  readonly evidence: Evidence[] = [];
  constructor(readonly redactor: Redactor) {}
  add(e: Evidence): void {
    if (e.kind === 'http') this.redactor.observe(e);
    this.evidence.push(e);
  }
}

export type Params = Record<string, string | undefined>;

export interface HttpRequest {
  method?: string;
  url: string;
  headers?: Record<string, string>;
  /** Sent as application/x-www-form-urlencoded; undefined values are left out. */
  form?: Params;
  /** Sent as application/json. */
  json?: unknown;
  /** A raw body (set content-type yourself). */
  body?: string;
  /** Names the exchange in the report, e.g. "token request with a wrong code_verifier". */
  label?: string;
}

export interface HttpResponse {
  status: number;
  url: string;
  headers: Headers;
  text: string;
  /** The parsed body when it is JSON, else undefined. */
  json: unknown;
  /** The parsed body when it is a JSON object, else an empty object (convenient for field checks). */
  body: Record<string, unknown>;
  header(name: string): string | undefined;
}

export interface TokenRequestOptions {
  /** Override the client's method; `omit` sends no client authentication at all. */
  auth?: AuthMethod | 'omit';
  /** Override the configured encoding. */
  encoding?: 'form' | 'json';
  /** Send this secret instead of the configured one (e.g. a wrong one). */
  secret?: string;
  /** Another endpoint than the token endpoint (revocation, introspection). */
  url?: string;
  label?: string;
}

export interface HttpClientOptions {
  recorder: Recorder;
  signal?: AbortSignal;
  requestTimeoutMs?: number;
  tokenEndpoint?: string;
  encoding?: 'form' | 'json';
  fetch?: typeof fetch;
}

function formBody(params: Params): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) search.append(k, v);
  return search.toString();
}

function definedOnly(params: Params): Record<string, string> {
  return Object.fromEntries(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined));
}

function transportCause(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return error.name === 'TimeoutError' ? `no response within ${timeoutMs} ms` : 'aborted';
  }
  const cause = error instanceof Error && error.cause && typeof error.cause === 'object' ? error.cause as { code?: string; message?: string } : undefined;
  if (cause?.code === 'ECONNREFUSED') return 'connection refused (ECONNREFUSED)';
  if (cause?.code === 'ENOTFOUND') return 'host not found (ENOTFOUND)';
  if (cause?.code) return `${cause.message ?? 'network error'} (${cause.code})`;
  return error instanceof Error ? error.message : String(error);
}

/** Basic credentials per RFC 6749 §2.3.1: form-encode id and secret, then base64. */
export function basicAuthorization(clientId: string, secret: string): string {
  const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${enc(clientId)}:${enc(secret)}`).toString('base64')}`;
}

export class HttpClient {
  readonly #o: HttpClientOptions;
  constructor(options: HttpClientOptions) {
    this.#o = options;
  }

  /** One request, redirects not followed, recorded as evidence. */
  async send(req: HttpRequest): Promise<HttpResponse> {
    const method = (req.method ?? (req.form || req.json !== undefined || req.body !== undefined ? 'POST' : 'GET')).toUpperCase();
    const headers: Record<string, string> = { accept: 'application/json, text/html;q=0.9, */*;q=0.5', ...lowerKeys(req.headers ?? {}) };
    let body = req.body;
    if (req.form) {
      body = formBody(req.form);
      headers['content-type'] ??= 'application/x-www-form-urlencoded';
    } else if (req.json !== undefined) {
      body = JSON.stringify(req.json);
      headers['content-type'] ??= 'application/json';
    }
    const timeoutMs = this.#o.requestTimeoutMs ?? 10_000;
    const signals = [AbortSignal.timeout(timeoutMs), ...(this.#o.signal ? [this.#o.signal] : [])];
    const started = performance.now();
    const evidence: HttpEvidence = {
      kind: 'http',
      ...(req.label ? { label: req.label } : {}),
      request: { method, url: req.url, headers, ...(body === undefined ? {} : { body: truncate(body) }) },
      durationMs: 0,
    };
    let res: Response;
    let text: string;
    try {
      res = await (this.#o.fetch ?? fetch)(req.url, {
        method, headers, ...(body === undefined ? {} : { body }), redirect: 'manual', signal: AbortSignal.any(signals),
      });
      text = await res.text();
    } catch (error) {
      evidence.error = transportCause(error, timeoutMs);
      evidence.durationMs = Math.round(performance.now() - started);
      this.#o.recorder.add(evidence);
      if (this.#o.signal?.aborted) throw this.#o.signal.reason;
      throw new TargetUnreachableError(req.url, evidence.error);
    }
    const responseHeaders: Record<string, string> = {};
    res.headers.forEach((value, name) => { responseHeaders[name] = value; });
    evidence.response = { status: res.status, headers: responseHeaders, ...(text ? { body: truncate(text) } : {}) };
    evidence.durationMs = Math.round(performance.now() - started);
    this.#o.recorder.add(evidence);
    const json = parseJson(text, res.headers.get('content-type'));
    return {
      status: res.status,
      url: req.url,
      headers: res.headers,
      text,
      json,
      body: json && typeof json === 'object' && !Array.isArray(json) ? json as Record<string, unknown> : {},
      header: (name) => res.headers.get(name) ?? undefined,
    };
  }

  get(url: string, options: Omit<HttpRequest, 'url' | 'method'> = {}): Promise<HttpResponse> {
    return this.send({ ...options, url, method: 'GET' });
  }

  /**
   * A request to the token endpoint (or `options.url`) as `client`: the configured encoding, and
   * the client's authentication method (Basic header, secret in the body, or client_id alone).
   */
  token(client: Client, params: Params, options: TokenRequestOptions = {}): Promise<HttpResponse> {
    const url = options.url ?? this.#o.tokenEndpoint;
    if (!url) throw new HarnessError('the target has no token endpoint in its discovery document');
    const auth = options.auth ?? client.authMethod;
    const secret = options.secret ?? client.clientSecret;
    const headers: Record<string, string> = {};
    let fields: Params = { ...params };
    if (auth === 'client_secret_basic') {
      if (secret === undefined) throw new HarnessError(`client ${client.role} has no secret for client_secret_basic`);
      headers.authorization = basicAuthorization(client.clientId, secret);
    } else if (auth === 'client_secret_post') {
      fields = { client_id: client.clientId, client_secret: secret, ...fields };
    } else if (auth === 'none') {
      fields = { client_id: client.clientId, ...fields };
    }
    const encoding = options.encoding ?? this.#o.encoding ?? 'form';
    const label = options.label ?? `${params.grant_type ?? 'request'} as ${client.role}`;
    return encoding === 'json'
      ? this.send({ url, method: 'POST', headers, json: definedOnly(fields), label })
      : this.send({ url, method: 'POST', headers, form: fields, label });
  }
}

function lowerKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

function truncate(text: string): string {
  return text.length > MAX_BODY ? `${text.slice(0, MAX_BODY)}\n… (${text.length - MAX_BODY} more characters)` : text;
}

function parseJson(text: string, contentType: string | null): unknown {
  if (!text || (!/json/i.test(contentType ?? '') && !/^\s*[{[]/.test(text))) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
