/**
 * A fetch for tests whose IdP pages live on names under *.localhost (a login host on a sibling
 * subdomain): Chromium resolves those to loopback by itself, Node's resolver does not, so this
 * fetch sends every request for a *.localhost name (and 127.0.0.1) to 127.0.0.1 over node:http,
 * keeping the name in the URL and the Host header. Redirects are never followed (HttpClient asks
 * for `redirect: 'manual'`). Anything else is refused: test traffic stays on loopback.
 */
import type { LookupFunction } from 'node:net';
import { request } from 'node:http';

const loopback: LookupFunction = (hostname, options, callback) => {
  if (hostname !== 'localhost' && !hostname.endsWith('.localhost') && hostname !== '127.0.0.1') {
    callback(Object.assign(new Error(`${hostname} is not a loopback name`), { code: 'ENOTFOUND' }), '', 4);
    return;
  }
  if ((options as { all?: boolean }).all)
    (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
      { address: '127.0.0.1', family: 4 },
    ]);
  else callback(null, '127.0.0.1', 4);
};

export const loopbackFetch: typeof fetch = async (input, init = {}) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (url.protocol !== 'http:') throw new TypeError(`loopbackFetch: only http, not ${url.protocol}`);
  const headers = new Headers(init.headers);
  const body = init.body === undefined || init.body === null ? undefined : String(init.body);
  return new Promise<Response>((resolve, reject) => {
    const req = request(
      url,
      {
        method: init.method ?? 'GET',
        headers: Object.fromEntries(headers),
        lookup: loopback,
        ...(init.signal ? { signal: init.signal } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const out = new Headers();
          for (let i = 0; i < res.rawHeaders.length; i += 2) out.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
          const status = res.statusCode ?? 500;
          const nullBody = status === 204 || status === 304 || (status >= 100 && status < 200);
          resolve(new Response(nullBody ? null : Buffer.concat(chunks), { status, headers: out }));
        });
      },
    );
    req.on('error', (error) => reject(new TypeError('fetch failed', { cause: error })));
    req.end(body);
  });
};
