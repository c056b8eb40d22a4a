/**
 * The listener that serves the harness's Client ID Metadata Documents during one run (docs/target-config.md, `cimd`):
 * a plain HTTP server (127.0.0.1 and a free port unless the config says otherwise) whose public base URL is the
 * config's `cimd.baseUrl` (a tunnel or proxy the user exposes) or, by default, its own loopback address. Every
 * document lives under a random path segment fresh per run; a request for anything else is a 404, and so is every
 * request once the run has ended (`end`). It answers GET and HEAD only, reads no request body, and holds at most
 * MAX_DOCUMENTS documents of at most MAX_DOCUMENT_BYTES each: the target's fetcher is untrusted too.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { HarnessError } from '../model/failures.ts';
import type { ClientRole } from '../model/requirements.ts';
import { cimdDocument, joinUrl } from './documents.ts';

/** Documents one run may publish (the role documents and the scenarios' own). */
export const MAX_DOCUMENTS = 64;
/** The largest document served (a scenario's oversized one included: cimd.bad-document sends 100 KiB). */
export const MAX_DOCUMENT_BYTES = 256 * 1024;
/** How long one request may take to arrive. */
const REQUEST_TIMEOUT_MS = 10_000;

export interface CimdPublishOptions {
  /** Content-Type (default application/json). */
  contentType?: string;
  /** HTTP status (default 200). */
  status?: number;
  /** The file name under the run's segment (default a random one ending in .json). */
  name?: string;
}

/** A document's body: text as served, a JSON value, or either made from the URL it is served at. */
export type CimdBody = string | Record<string, unknown> | ((url: string) => string | Record<string, unknown>);

/** What scenarios see (ctx.cimd): publish a document for this run, get its URL. */
export interface CimdPublisher {
  /** The public base URL documents are served under. */
  readonly baseUrl: string;
  /** Serves `body` until the run ends; returns its URL (a client_id). Throws HarnessError past the limits. */
  publish(body: CimdBody, options?: CimdPublishOptions): string;
}

/** The run's listener: a publisher, the role documents, and its end. */
export interface CimdServer extends CimdPublisher {
  /** Publishes the role's document (its client_id the URL, redirect_uris [redirectUri]); returns the URL. */
  publishRole(role: ClientRole, redirectUri: string): string;
  /** The listener's own address (http://HOST:PORT), which baseUrl reaches through the user's tunnel or proxy. */
  readonly listenUrl: string;
  /** Every URL served so far (the report's record). */
  readonly urls: readonly string[];
  /** The run has ended: every document is gone (404 from now on). */
  end(): void;
  /** end(), then the listener is closed. */
  close(): Promise<void>;
}

export interface CimdServerOptions {
  /** Where to listen (default 127.0.0.1, a free port). */
  listen?: { host?: string; port?: number };
  /** The public base URL (default http://HOST:PORT of the listener). */
  baseUrl?: string;
}

interface Served {
  body: Buffer;
  contentType: string;
  status: number;
}

/** Starts the listener; rejects with a message naming the address when it cannot bind. */
export async function startCimdServer(options: CimdServerOptions = {}): Promise<CimdServer> {
  const host = options.listen?.host ?? '127.0.0.1';
  const documents = new Map<string, Served>();
  const segment = randomBytes(12).toString('base64url');
  let ended = false;
  const server: Server = createServer((req, res) => {
    req.resume();
    const path = new URL(req.url ?? '/', 'http://cimd.invalid').pathname;
    const doc = ended || (req.method !== 'GET' && req.method !== 'HEAD') ? undefined : lookup(path);
    if (!doc) {
      res.writeHead(404, { 'content-type': 'text/plain', 'cache-control': 'no-store' }).end('not found');
      return;
    }
    res.writeHead(doc.status, {
      'content-type': doc.contentType,
      'content-length': doc.body.length,
      'cache-control': 'no-store',
    });
    res.end(req.method === 'HEAD' ? undefined : doc.body);
  });
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.headersTimeout = REQUEST_TIMEOUT_MS;
  server.maxHeadersCount = 100;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) =>
      reject(
        new HarnessError(
          `the CIMD document listener cannot listen on ${host}:${options.listen?.port ?? 0}: ${error.message}`,
        ),
      ),
    );
    server.listen(options.listen?.port ?? 0, host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const listenUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const baseUrl = (options.baseUrl ?? listenUrl).replace(/\/+$/, '');
  const basePath = new URL(baseUrl).pathname.replace(/\/+$/, '');
  /** A request's path: under the base URL's path, or under the root (a proxy that strips the base path). */
  function lookup(path: string): Served | undefined {
    const relative = basePath && path.startsWith(`${basePath}/`) ? path.slice(basePath.length) : path;
    return documents.get(relative);
  }
  const urls: string[] = [];
  const publish = (body: CimdBody, o: CimdPublishOptions = {}): string => {
    if (ended) throw new HarnessError('the run has ended: the CIMD listener publishes nothing more');
    if (documents.size >= MAX_DOCUMENTS) throw new HarnessError(`at most ${MAX_DOCUMENTS} CIMD documents a run`);
    const name = o.name ?? `${randomBytes(9).toString('base64url')}.json`;
    if (!/^[A-Za-z0-9._-]{1,100}$/.test(name) || name.startsWith('.'))
      throw new HarnessError(`a CIMD document name is letters, digits, ".", "_" and "-": not "${name}"`);
    const relative = `/${segment}/${name}`;
    if (documents.has(relative)) throw new HarnessError(`a CIMD document ${name} is published already`);
    const url = joinUrl(baseUrl, segment, name);
    const value = typeof body === 'function' ? body(url) : body;
    const text = Buffer.from(typeof value === 'string' ? value : JSON.stringify(value, null, 2));
    if (text.length > MAX_DOCUMENT_BYTES)
      throw new HarnessError(`a CIMD document is at most ${MAX_DOCUMENT_BYTES} bytes, not ${text.length}`);
    documents.set(relative, { body: text, contentType: o.contentType ?? 'application/json', status: o.status ?? 200 });
    urls.push(url);
    return url;
  };
  const end = () => {
    ended = true;
    documents.clear();
  };
  return {
    baseUrl,
    listenUrl,
    publish,
    publishRole: (role, redirectUri) =>
      publish((url) => cimdDocument(url, role, redirectUri), { name: `${role}.json` }),
    get urls() {
      return [...urls];
    },
    end,
    close: async () => {
      end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
