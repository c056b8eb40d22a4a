/**
 * The harness's HTTP transport over node:http and node:https: it sends exactly the headers it is
 * given — nothing of its own, unlike Node's `fetch`, which adds `Sec-Fetch-Mode: cors`,
 * `Accept-Language: *` and `User-Agent: node` (and overrides a navigation's own). `wireHeaders`
 * completes a request with what the wire needs (Host, Content-Length, Connection), so the
 * transcript can show every header sent. Redirects are never followed; the body is decoded as
 * `fetch` would (gzip, deflate, br) and handed over as a stream, so the caller's size cap counts
 * the decoded bytes. TLS is Node's default (the system CAs and NODE_EXTRA_CA_CERTS), as before.
 */
import { Agent as HttpAgent, type ClientRequest, type IncomingMessage, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

/** Pooled connections, idle for at most 4 s (as undici's were: a server closing at 5 s never races a reuse). */
const AGENT_OPTIONS = { keepAlive: true, timeout: 4_000 } as const;
const agents = { 'http:': new HttpAgent(AGENT_OPTIONS), 'https:': new HttpsAgent(AGENT_OPTIONS) };

/** The Accept-Encoding the harness sends (and decodes). */
export const ACCEPT_ENCODING = 'gzip, deflate, br';

/**
 * The request headers as they go on the wire: `headers` (lower-case names) plus Host, Content-Length
 * (when there is a body) and Connection, unless already set. `pooled` false: a connection of its own, closed after.
 */
export function wireHeaders(
  url: string,
  headers: Record<string, string>,
  body: string | Uint8Array | undefined,
  pooled = true,
): Record<string, string> {
  return {
    host: new URL(url).host,
    ...headers,
    ...(body === undefined || headers['content-length'] !== undefined
      ? {}
      : { 'content-length': String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength) }),
    connection: headers.connection ?? (pooled ? 'keep-alive' : 'close'),
  };
}

/** A request, not yet ended: on a pooled connection, or (`pooled` false) on a new one of its own. */
export function openRequest(
  url: string,
  init: { method: string; headers: Record<string, string>; signal?: AbortSignal | undefined },
  pooled = true,
): ClientRequest {
  const u = new URL(url);
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new TypeError(`${u.protocol} is not http(s)`);
  const request = u.protocol === 'https:' ? httpsRequest : httpRequest;
  const req = request(u, {
    method: init.method,
    headers: init.headers,
    agent: pooled ? agents[u.protocol] : false,
    // Node would otherwise add a Host or a chunked Transfer-Encoding of its own: every header is ours.
    setHost: false,
    ...(init.signal ? { signal: init.signal } : {}),
  });
  return req;
}

/** The response as a fetch Response: the headers as received, the body decoded (gzip, deflate, br; others as is). */
export function responseOf(res: IncomingMessage, method: string): Response {
  const headers = new Headers();
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
    try {
      headers.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
    } catch {
      // a header no Headers object can hold (a name Node's parser let through): left out
    }
  }
  const status = res.statusCode ?? 0;
  if (method === 'HEAD' || status === 204 || status === 205 || status === 304) {
    res.resume();
    return new Response(null, { status, headers });
  }
  let body: Readable = res;
  const codings = (res.headers['content-encoding'] ?? '')
    .toLowerCase()
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c && c !== 'identity');
  if (codings.every((c) => DECODERS[c])) {
    for (const coding of codings.reverse()) {
      const decoder = DECODERS[coding]!();
      body.once('error', (e) => decoder.destroy(e));
      body = body.pipe(decoder);
    }
  }
  return new Response(Readable.toWeb(body) as ReadableStream<Uint8Array>, { status, headers });
}

const DECODERS: Record<string, () => NodeJS.ReadWriteStream & Readable> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/**
 * One exchange, as `fetch(url, { redirect: 'manual' })` but with exactly `init.headers` (complete
 * them with wireHeaders first): the Response once the head has arrived. Transport failures reject
 * with a TypeError whose cause is Node's error (its code, e.g. ECONNREFUSED); an abort with the
 * signal's reason.
 */
export function send(
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string | Uint8Array; signal?: AbortSignal },
): Promise<Response> {
  return attempt(url, init, true);
}

/**
 * One attempt; `retry`: once more on a new connection when a pooled one turns out closed by the
 * server before it answered (ECONNRESET or EPIPE on a reused socket: the request was never read).
 */
function attempt(
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string | Uint8Array; signal?: AbortSignal },
  retry: boolean,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    let req: ClientRequest;
    try {
      req = openRequest(url, init);
    } catch (error) {
      reject(new TypeError('request not sent', { cause: error }));
      return;
    }
    req.once('error', (error: NodeJS.ErrnoException) => {
      if (init.signal?.aborted) reject(init.signal.reason);
      else if (retry && req.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE'))
        attempt(url, init, false).then(resolve, reject);
      else reject(new TypeError('request failed', { cause: error }));
    });
    req.once('response', (res) => {
      try {
        resolve(responseOf(res, init.method));
      } catch (error) {
        res.destroy();
        reject(new TypeError(`unreadable response (HTTP ${res.statusCode})`, { cause: error }));
      }
    });
    req.end(init.body);
  });
}
