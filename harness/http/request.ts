/**
 * A request as a caller of the HTTP client (http.ts) describes it (a form, JSON or raw body, a label,
 * a navigation), and as it goes on the wire: method, lower-case headers (a browser's for a
 * navigation, a server-side client's otherwise) and body, recorded as the exchange's evidence.
 */
import { CLIENT_USER_AGENT, type Navigation, navigationHeaders } from './navigation.ts';
import type { HttpEvidence } from '../model/results.ts';
import { ACCEPT_ENCODING } from './transport.ts';

export type Params = Record<string, string | undefined>;

export interface HttpRequest {
  method?: string;
  url: string;
  headers?: Record<string, string>;
  /** Sent as application/x-www-form-urlencoded; undefined values are left out. */
  form?: Params;
  /** Sent as application/json. */
  json?: unknown;
  /** A raw body, text or bytes, sent as is: set content-type yourself (none is added). */
  body?: string | Uint8Array;
  /** Names the exchange in the report, e.g. "token request with a wrong code_verifier". */
  label?: string;
  /**
   * A top-level navigation (a page the user opens, a form they submit): sent with a browser's
   * headers (harness/http/navigation.ts) instead of a server-side client's. `headers` still win.
   */
  navigation?: Navigation;
}

/**
 * Method, headers (lower-case) and the body to send. A navigation gets a browser's headers
 * (harness/http/navigation.ts); any other request a server-side client's: JSON first, our own
 * User-Agent, no Sec-Fetch-*. The request's own headers win.
 */
export function prepare(
  req: HttpRequest,
  userAgent: string | undefined,
): {
  method: string;
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
} {
  const method = (
    req.method ?? (req.form || req.json !== undefined || req.body !== undefined ? 'POST' : 'GET')
  ).toUpperCase();
  const base = req.navigation
    ? navigationHeaders(method, req.url, req.navigation, userAgent)
    : { 'user-agent': CLIENT_USER_AGENT, accept: 'application/json, text/html;q=0.9, */*;q=0.5' };
  const headers: Record<string, string> = {
    ...base,
    'accept-encoding': ACCEPT_ENCODING,
    ...lowerKeys(req.headers ?? {}),
  };
  let body = req.body;
  if (req.form) {
    body = formBody(req.form);
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
  } else if (req.json !== undefined) {
    body = JSON.stringify(req.json);
    headers['content-type'] ??= 'application/json';
  }
  return { method, headers, body };
}

/** The exchange's evidence before the response: the request as sent, every header included. */
export function requestEvidence(
  req: HttpRequest,
  method: string,
  headers: Record<string, string>,
  body: string | Uint8Array | undefined,
): HttpEvidence {
  const text =
    body === undefined || typeof body === 'string'
      ? body
      : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  return {
    kind: 'http',
    ...(req.label ? { label: req.label } : {}),
    request: { method, url: req.url, headers, ...(text === undefined ? {} : { body: text }) },
    durationMs: 0,
  };
}

function formBody(params: Params): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) search.append(k, v);
  return search.toString();
}

function lowerKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}
