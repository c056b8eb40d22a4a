/**
 * The back-channel logout receiver (OIDC Back-Channel Logout 1.0 §2.5, §2.8): a plain HTTP server on 127.0.0.1 at
 * the port of the client's registered backchannel_logout_uri, for the length of one scenario. It takes POSTs to that
 * URI's path, each body at most MAX_BODY bytes and read within REQUEST_TIMEOUT_MS, answers 200 with no-store (§2.8),
 * and keeps what arrived as data for the scenario to judge: nothing it receives is acted on.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { LOGOUT_TOKEN_PARAM } from '../../protocol/logout.ts';

/** A logout token is a few kilobytes; a body beyond this is cut off (413). */
export const MAX_BODY = 64 * 1024;
/** How long one request may take to arrive in full. */
const REQUEST_TIMEOUT_MS = 10_000;
/** Deliveries kept; later ones are counted, not kept. */
const MAX_DELIVERIES = 16;

/** One POST to the receiver's path. */
export interface LogoutDelivery {
  /** The request's Content-Type, as sent (lower-cased). */
  contentType: string;
  /** The logout_token form parameter, when the body was form-encoded and had exactly one. */
  token?: string;
  /** Why no token could be read (wrong content type, no or repeated logout_token, body too large). */
  problem?: string;
}

export interface LogoutReceiver {
  /** The URI as registered (what the IdP POSTs to). */
  readonly uri: string;
  readonly deliveries: readonly LogoutDelivery[];
  /**
   * The first delivery `accept` takes (other logouts of the same run may POST here too), waiting at most `ms` for it;
   * undefined when none came in time.
   */
  first(ms: number, accept?: (delivery: LogoutDelivery) => boolean): Promise<LogoutDelivery | undefined>;
  close(): Promise<void>;
}

/**
 * Listens on 127.0.0.1 at the port of `uri` (its path only). Rejects with a message naming the port when the port
 * cannot be bound (in use, or privileged).
 */
export async function listenForLogoutTokens(uri: string): Promise<LogoutReceiver> {
  const url = new URL(uri);
  const port = Number(url.port);
  const deliveries: LogoutDelivery[] = [];
  const waiting = new Set<() => void>();
  const record = (delivery: LogoutDelivery) => {
    if (deliveries.length < MAX_DELIVERIES) deliveries.push(delivery);
    for (const wake of waiting) wake();
  };
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://receiver.invalid').pathname;
    if (req.method !== 'POST' || path !== url.pathname) {
      res.writeHead(404).end();
      req.resume();
      return;
    }
    readBody(req).then(
      (body) => {
        record(deliveryOf(String(req.headers['content-type'] ?? '').toLowerCase(), body));
        res.writeHead(200, { 'Cache-Control': 'no-store' }).end();
      },
      (error: Error) => {
        record({ contentType: String(req.headers['content-type'] ?? ''), problem: error.message });
        res.writeHead(413, { Connection: 'close' }).end();
        req.destroy();
      },
    );
  });
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.headersTimeout = REQUEST_TIMEOUT_MS;
  server.maxHeadersCount = 100;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new Error(
          `cannot listen on 127.0.0.1:${port} for the back-channel logout token (${error.code ?? error.message}); ` +
            `backchannelLogoutUri must name a free, unprivileged port of this machine`,
        ),
      ),
    );
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    uri,
    deliveries,
    first(ms, accept = () => true) {
      const found = () => deliveries.find(accept);
      if (found()) return Promise.resolve(found());
      return new Promise((resolve) => {
        const finish = () => {
          clearTimeout(timer);
          waiting.delete(check);
          resolve(found());
        };
        const check = () => {
          if (found()) finish();
        };
        const timer = setTimeout(finish, ms);
        waiting.add(check);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The body, at most MAX_BODY bytes (rejects past that). */
function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(new Error(`the body was larger than ${MAX_BODY} bytes`));
        req.pause();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** §2.5: an application/x-www-form-urlencoded body with one logout_token parameter. */
function deliveryOf(contentType: string, body: string): LogoutDelivery {
  if (contentType.split(';')[0]?.trim() !== 'application/x-www-form-urlencoded')
    return { contentType, problem: `the body was sent as ${contentType || '(no Content-Type)'}, not form-encoded` };
  const tokens = new URLSearchParams(body).getAll(LOGOUT_TOKEN_PARAM);
  if (tokens.length !== 1 || tokens[0] === '')
    return {
      contentType,
      problem: `the form had ${tokens.length === 0 ? 'no' : tokens.length} ${LOGOUT_TOKEN_PARAM} parameter(s)`,
    };
  return { contentType, token: tokens[0]! };
}
