/**
 * The HTTP client scenarios use, and the response it returns (the request is described in
 * http-request.ts). It never follows redirects, records every exchange in the scenario's evidence
 * (recorder.ts: the Redactor learns the secrets in it on the way), sends token requests in the
 * configured encoding with the client's authentication method, refuses a request off the allowed
 * origins, reads bodies within the limits, and turns transport failures into TargetUnreachableError
 * (an `error` result, never a target failure).
 */
import type { HttpEvidence } from '../model/results.ts';
import type { Client } from '../config/load.ts';
import type { AuthMethod } from '../config/clients-schema.ts';
import { assertionFields, clientAssertion } from '../tokens/client-assertion.ts';
import { type ErrorCode, HarnessError, TargetUnreachableError } from '../model/failures.ts';
import { basicAuthorization, connected, definedOnly, isJsonCandidate, requestSignal, transportCause } from './wire.ts';
import { type TargetTraffic, requestName } from './traffic.ts';
import { DEFAULT_LIMITS, LimitExceededError, type Limits, jsonDeeperThan, parseJsonBounded } from '../model/limits.ts';
import { type HttpRequest, type Params, prepare, requestEvidence } from './request.ts';
import type { OriginPolicy } from './origin.ts';
import type { Recorder } from './recorder.ts';
import { openRequest, responseOf, send as transportSend, wireHeaders } from './transport.ts';
import { isRecord } from '../../protocol/guards.ts';

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
  /** Another endpoint than the token endpoint (revocation, introspection, PAR). */
  url?: string;
  label?: string;
  /** Extra request headers (e.g. a DPoP proof). */
  headers?: Record<string, string>;
  /** private_key_jwt: send this client assertion instead of a fresh one (harness/tokens/client-assertion.ts). */
  assertion?: string;
}

export interface HttpClientOptions {
  recorder: Recorder;
  signal?: AbortSignal;
  requestTimeoutMs?: number;
  /** Where requests may go (docs/security.md); a request elsewhere is refused before it is sent (OffOriginError). */
  origins?: OriginPolicy;
  /** Body size and JSON depth caps (default DEFAULT_LIMITS). */
  limits?: Partial<Limits>;
  tokenEndpoint?: string;
  /** The issuer: the audience of private_key_jwt client assertions. */
  issuer?: string;
  encoding?: 'form' | 'json';
  /** The User-Agent of navigations (target config `login.userAgent`); default a desktop Chromium's. */
  userAgent?: string;
  /** The run's traffic to the target, counted across scenarios (an outage mid-run is reported once). */
  traffic?: TargetTraffic;
  /**
   * Tests only: a fetch to send through instead of the node:http(s) transport (harness/http/transport.ts).
   * It receives every header the harness sets, Host, Content-Length and Connection included.
   */
  fetch?: typeof fetch;
}

export class HttpClient {
  readonly #o: HttpClientOptions;
  constructor(options: HttpClientOptions) {
    this.#o = options;
  }

  get #limits(): Limits {
    return { ...DEFAULT_LIMITS, ...this.#o.limits };
  }

  /** Refuse a request off the allowed origins before anything is sent: recorded without its body. */
  #checkOrigin(req: HttpRequest, method: string): void {
    const problem = this.#o.origins?.problem(req.url);
    if (!problem) return;
    const what = this.#o.origins!.describe(req.url, req.label);
    this.#o.recorder.add({
      kind: 'http',
      ...(req.label ? { label: req.label } : {}),
      durationMs: 0,
      request: { method, url: req.url, headers: {} },
      error: `not sent: ${problem}`,
    });
    throw new OffOriginError(`refused to send ${what}: ${problem}`);
  }

  /**
   * One request, redirects not followed, recorded as evidence with every header sent: those the
   * harness sets (a navigation's browser headers, or a server-side client's), and Host,
   * Content-Length and Connection, which the transport sends as they are recorded.
   */
  async send(req: HttpRequest): Promise<HttpResponse> {
    const { method, headers, body } = prepare(req, this.#o.userAgent);
    this.#checkOrigin(req, method);
    const timeoutMs = this.#o.requestTimeoutMs ?? 10_000;
    const started = performance.now();
    const sent = wireHeaders(req.url, headers, body);
    const evidence = requestEvidence(req, method, sent, body);
    const { signal, done } = requestSignal(timeoutMs, this.#o.signal);
    this.#o.traffic?.sent(method, req.url, req.label);
    let res: Response;
    let text: string;
    try {
      const init = { method, headers: sent, ...(body === undefined ? {} : { body }), signal };
      res = await (this.#o.fetch
        ? this.#o.fetch(req.url, { ...init, redirect: 'manual' })
        : transportSend(req.url, init));
      text = await this.#readBody(res, evidence, started);
    } catch (error) {
      if (error instanceof LimitExceededError) throw error;
      throw this.#transportFailure(evidence, signal.aborted ? signal.reason : error, timeoutMs, started);
    } finally {
      done();
    }
    return this.#received(evidence, req.url, res.status, res.headers, text, started);
  }

  /** The body as text, read up to limits.maxBodyBytes (counted after decompression: a gzip bomb stops there). */
  async #readBody(res: Response, evidence: HttpEvidence, started: number): Promise<string> {
    if (!res.body) return '';
    const max = this.#limits.maxBodyBytes;
    const reader = res.body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > max) {
        await reader.cancel().catch(() => undefined);
        throw this.#overLimit(
          evidence,
          res.status,
          res.headers,
          started,
          `is larger than ${max} bytes ` +
            `(limits.maxBodyBytes)` +
            `${
              res.headers.get('content-encoding')
                ? ` once decompressed (content-encoding ${res.headers.get('content-encoding')})`
                : ''
            }; the harness read no further`,
        );
      }
      chunks.push(value);
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  #overLimit(
    evidence: HttpEvidence,
    status: number,
    headers: Headers,
    started: number,
    why: string,
  ): LimitExceededError {
    const responseHeaders: Record<string, string> = {};
    headers.forEach((value, name) => {
      responseHeaders[name] = value;
    });
    evidence.response = { status, headers: responseHeaders };
    evidence.error = `the response ${why}`;
    evidence.durationMs = Math.round(performance.now() - started);
    this.#o.recorder.add(evidence);
    return new LimitExceededError(
      `the response to ${evidence.label ?? `${evidence.request.method} ${evidence.request.url}`} ` +
        `(${evidence.request.url}) ${why}`,
    );
  }

  /**
   * The same request `count` times at once, for races (e.g. one code redeemed in parallel):
   * `count` connections are opened first, then every request is written in one go, so the server
   * has them all before it answers any. Over node:http(s), not `fetch` (whose connection reuse
   * and pacing are not under the caller's control). Each exchange is recorded; responses come in
   * request order.
   */
  async sendAtOnce(req: HttpRequest, count: number): Promise<HttpResponse[]> {
    const { method, headers, body } = prepare(req, this.#o.userAgent);
    this.#checkOrigin(req, method);
    const tls = new URL(req.url).protocol === 'https:';
    const timeoutMs = this.#o.requestTimeoutMs ?? 10_000;
    const { signal, done } = requestSignal(timeoutMs, this.#o.signal);
    const sent = wireHeaders(req.url, headers, body, false);
    const started = performance.now();
    const name = req.label ?? `${method} ${new URL(req.url).pathname}`;
    for (let i = 0; i < count; i++) this.#o.traffic?.sent(method, req.url, name);
    const exchanges = Array.from({ length: count }, (_, i) => {
      const evidence = requestEvidence(
        { ...req, label: `${name} (${i + 1} of ${count}, at once)` },
        method,
        sent,
        body,
      );
      const request = openRequest(req.url, { method, headers: sent, signal }, false);
      const response = new Promise<Response>((resolve, reject) => {
        request.once('error', reject).once('response', (res) => resolve(responseOf(res, method)));
      });
      response.catch(() => {}); // awaited below; an early failure is not an unhandled rejection
      return { evidence, request, response };
    });
    const fail = (i: number, error: unknown): never => {
      for (const { request } of exchanges) request.destroy();
      if (error instanceof LimitExceededError) throw error;
      throw this.#transportFailure(exchanges[i]!.evidence, signal.aborted ? signal.reason : error, timeoutMs, started);
    };
    try {
      const opened = await Promise.allSettled(exchanges.map(({ request }) => connected(request, tls)));
      const refused = opened.findIndex((r) => r.status === 'rejected');
      const first = opened[refused];
      if (first?.status === 'rejected') fail(refused, first.reason);
      // Every connection is open: write every request now, in one go.
      for (const { request } of exchanges) request.end(body);
      const out: HttpResponse[] = [];
      for (const [i, { evidence, response }] of exchanges.entries()) {
        const res = await response.catch((error: unknown) => fail(i, error));
        const text = await this.#readBody(res, evidence, started).catch((error: unknown) => fail(i, error));
        out.push(this.#received(evidence, req.url, res.status, res.headers, text, started));
      }
      return out;
    } finally {
      done();
    }
  }

  #transportFailure(evidence: HttpEvidence, error: unknown, timeoutMs: number, started: number): unknown {
    evidence.error = transportCause(error, timeoutMs);
    evidence.durationMs = Math.round(performance.now() - started);
    this.#o.recorder.add(evidence);
    if (this.#o.signal?.aborted) return this.#o.signal.reason;
    const { method, url } = evidence.request;
    this.#o.traffic?.unanswered(requestName(method, url, evidence.label), evidence.error);
    return new TargetUnreachableError(evidence.request.url, evidence.error);
  }

  #received(
    evidence: HttpEvidence,
    url: string,
    status: number,
    headers: Headers,
    text: string,
    started: number,
  ): HttpResponse {
    this.#o.traffic?.answered();
    const responseHeaders: Record<string, string> = {};
    headers.forEach((value, name) => {
      responseHeaders[name] = value;
    });
    const maxDepth = this.#limits.maxJsonDepth;
    const looksJson = isJsonCandidate(text, headers.get('content-type'));
    if (looksJson && jsonDeeperThan(text, maxDepth)) {
      throw this.#overLimit(
        evidence,
        status,
        headers,
        started,
        `nests JSON deeper than ${maxDepth} levels; the harness does not parse it`,
      );
    }
    evidence.response = { status, headers: responseHeaders, ...(text ? { body: text } : {}) };
    evidence.durationMs = Math.round(performance.now() - started);
    this.#o.recorder.add(evidence);
    const json = looksJson ? parseJsonBounded(text, maxDepth) : undefined;
    return {
      status,
      url,
      headers,
      text,
      json,
      body: isRecord(json) ? json : {},
      header: (name) => headers.get(name) ?? undefined,
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
    return this.send(this.tokenRequest(client, params, options));
  }

  /** The same token request `count` times at once (see sendAtOnce): for single-use races. */
  tokenAtOnce(
    client: Client,
    params: Params,
    count: number,
    options: TokenRequestOptions = {},
  ): Promise<HttpResponse[]> {
    return this.sendAtOnce(this.tokenRequest(client, params, options), count);
  }

  /** The HttpRequest `token()` sends. */
  tokenRequest(client: Client, params: Params, options: TokenRequestOptions = {}): HttpRequest {
    const url = options.url ?? this.#o.tokenEndpoint;
    if (!url) throw new HarnessError('the target has no token endpoint in its discovery document');
    const auth = options.auth ?? client.authMethod;
    const secret = options.secret ?? client.clientSecret;
    const headers: Record<string, string> = { ...options.headers };
    let fields: Params = { ...params };
    if (auth === 'client_secret_basic') {
      if (secret === undefined) throw new HarnessError(`client ${client.role} has no secret for client_secret_basic`);
      headers.authorization = basicAuthorization(client.clientId, secret);
    } else if (auth === 'client_secret_post') {
      fields = { client_id: client.clientId, client_secret: secret, ...fields };
    } else if (auth === 'none') {
      fields = { client_id: client.clientId, ...fields };
    } else if (auth === 'private_key_jwt') {
      if (!options.assertion && !this.#o.issuer)
        throw new HarnessError("private_key_jwt needs the issuer (the assertion's audience)");
      const assertion = options.assertion ?? clientAssertion(client, { audience: this.#o.issuer! });
      fields = { ...assertionFields(client.clientId, assertion), ...fields };
    }
    const encoding = options.encoding ?? this.#o.encoding ?? 'form';
    const label = options.label ?? `${params.grant_type ?? 'request'} as ${client.role}`;
    return encoding === 'json'
      ? { url, method: 'POST', headers, json: definedOnly(fields), label }
      : { url, method: 'POST', headers, form: fields, label };
  }
}

/** A request to somewhere the origin policy does not allow: refused, never sent (an `error`). */
export class OffOriginError extends HarnessError {
  override readonly name = 'OffOriginError';
  /** The target's URL (an endpoint, a redirect, a page) left its origin: the cause is the target, not the harness. */
  override readonly code: ErrorCode = 'ERR_TARGET_OFF_ORIGIN';
}
