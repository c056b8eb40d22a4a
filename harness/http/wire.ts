/**
 * What the HTTP client (http.ts) builds on, below the request and response it describes: JSON fields
 * without the unset ones, Basic credentials (RFC 6749 §2.3.1),
 * a request's timer-driven abort signal, a transport failure in words, a connection opened (for
 * requests sent at once), and whether a body is worth parsing as JSON.
 */
import type { ClientRequest } from 'node:http';
import { isRecord } from '../../protocol/guards.ts';

export function definedOnly(params: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined));
}

/** Basic credentials per RFC 6749 §2.3.1: form-encode id and secret, then base64. */
export function basicAuthorization(clientId: string, secret: string): string {
  const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${enc(clientId)}:${enc(secret)}`).toString('base64')}`;
}

/** A timer-driven abort signal (Node 20's AbortSignal.timeout inside AbortSignal.any can stop firing after a GC). */
export function requestSignal(
  timeoutMs: number,
  outer: AbortSignal | undefined,
): { signal: AbortSignal; done(): void } {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException(`no response within ${timeoutMs} ms`, 'TimeoutError')),
    timeoutMs,
  );
  const onAbort = () => controller.abort(outer?.reason);
  if (outer?.aborted) controller.abort(outer.reason);
  else outer?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    done: () => {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    },
  };
}

export function transportCause(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return error.name === 'TimeoutError' ? `no response within ${timeoutMs} ms` : 'aborted';
  }
  const cause = error instanceof Error && isRecord(error.cause) ? error.cause : undefined;
  const code = cause?.code;
  if (code === 'ECONNREFUSED') return 'connection refused (ECONNREFUSED)';
  if (code === 'ENOTFOUND') return 'host not found (ENOTFOUND)';
  if (code) return `${String(cause?.message ?? 'network error')} (${String(code)})`;
  return error instanceof Error ? error.message : String(error);
}

/** Resolves once the request's own (new) connection is open, TLS included. */
export function connected(request: ClientRequest, tls: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    request.once('error', reject).once('socket', (socket) => {
      socket.once(tls ? 'secureConnect' : 'connect', () => resolve());
    });
  });
}

export function isJsonCandidate(text: string, contentType: string | null): boolean {
  return Boolean(text) && (/json/i.test(contentType ?? '') || /^\s*[{[]/.test(text));
}
