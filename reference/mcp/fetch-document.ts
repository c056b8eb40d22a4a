/**
 * Fetching a Client ID Metadata Document (draft-ietf-oauth-client-id-metadata-document §4, §6.5, §6.6): one GET,
 * bounded in time and size, no redirect followed, and never to a special-use address (RFC 6890) — unless the test
 * switch `cimdAllowLoopback` is on and the address is a loopback one. The address checked is the address connected to
 * (the `lookup` of the request), so a name that resolves anew to another address cannot slip past the check.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { type ClientRequest, request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { familyOf, isLoopbackAddress } from '../loopback.ts';

/** The draft's §6.6: "The recommended maximum response size for client metadata documents is 5 kilobytes." */
export const DOCUMENT_LIMIT_BYTES = 5 * 1024;
/** How long one fetch may take, connection included. */
export const DOCUMENT_TIMEOUT_MS = 5_000;
/** What the flaw cimd-bad-document-accepted reads instead: still bounded, never unbounded. */
export const FLAWED_LIMIT_BYTES = 1024 * 1024;

export interface FetchedDocument {
  status: number;
  /** Cache-Control, as sent. */
  cacheControl: string | undefined;
  body: string;
}

/** Why a document could not be fetched (refused before or during the fetch): the message says it. */
export class DocumentFetchError extends Error {}

/** RFC 6890's special-purpose blocks (and the rest of what no public server lives at): never fetched from. */
const SPECIAL_USE = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  SPECIAL_USE.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  SPECIAL_USE.addSubnet(net, prefix, 'ipv6');

/** Whether the fetch may connect to this address. */
export function addressAllowed(address: string, allowLoopback: boolean): boolean {
  // An IPv4-mapped IPv6 address (::ffff:0:0/96, RFC 6890) is judged as the IPv4 address it maps.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped !== undefined) return addressAllowed(mapped, allowLoopback);
  if (/^::ffff:/i.test(address)) return false;
  const family = familyOf(address);
  if (allowLoopback && isLoopbackAddress(address)) return true;
  return !SPECIAL_USE.check(address, family);
}

/** The lookup the request connects with: every address resolved must be allowed. */
function guardedLookup(allowLoopback: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 4);
      const refused = addresses.find((a) => !addressAllowed(a.address, allowLoopback));
      const first = addresses[0];
      if (refused || !first) {
        const what = refused ? `a special-use address (${refused.address})` : 'no address';
        return callback(new DocumentFetchError(`the document's host resolves to ${what}`), '', 4);
      }
      if (options.all) return (callback as (e: null, a: LookupAddress[]) => void)(null, addresses);
      callback(null, first.address, first.family);
    });
  };
}

/**
 * GET the document at `url` (already checked to be a client identifier URL): the status, Cache-Control and the body
 * as text, at most `limit` bytes (more: a DocumentFetchError, the rest never read), within DOCUMENT_TIMEOUT_MS.
 */
export function fetchDocument(url: URL, allowLoopback: boolean, limit: number): Promise<FetchedDocument> {
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(literal) !== 0 && !addressAllowed(literal, allowLoopback))
    return Promise.reject(new DocumentFetchError(`the document's host is a special-use address (${literal})`));
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    let req: ClientRequest;
    try {
      req = request(url, {
        method: 'GET',
        headers: { accept: 'application/json' },
        lookup: guardedLookup(allowLoopback),
        timeout: DOCUMENT_TIMEOUT_MS,
      });
    } catch {
      // A URL node refuses to request (e.g. a host it cannot use): a refusal, never a 500.
      return reject(new DocumentFetchError('the document URL cannot be requested'));
    }
    const timer = setTimeout(
      () => req.destroy(new DocumentFetchError('the document took too long')),
      DOCUMENT_TIMEOUT_MS,
    );
    const fail = (err: Error) => {
      clearTimeout(timer);
      reject(err instanceof DocumentFetchError ? err : new DocumentFetchError('the document could not be fetched'));
    };
    req.on('timeout', () => req.destroy(new DocumentFetchError('the document took too long')));
    req.on('error', fail);
    req.on('response', (res: IncomingMessage) => {
      res.on('error', fail);
      /** Answered (the promise settles first), then the rest is never read. */
      const tooLarge = () => {
        fail(new DocumentFetchError(`the document is larger than ${limit} bytes`));
        res.destroy();
        req.destroy();
      };
      if (Number(res.headers['content-length'] ?? '0') > limit) return tooLarge();
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limit) return tooLarge();
        chunks.push(chunk);
      });
      res.on('end', () => {
        clearTimeout(timer);
        const cacheControl = res.headers['cache-control'];
        resolve({ status: res.statusCode ?? 0, cacheControl, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.end();
  });
}
