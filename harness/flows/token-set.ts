/** A token response as set-up: the tokens, or a PreconditionError saying why there are none. */
import { PreconditionError } from '../model/failures.ts';
import type { HttpResponse } from '../http/client.ts';

/** A token response's members (RFC 6749 §5.1), as the flows hand them to a scenario. */
export interface TokenSet {
  access_token: string;
  token_type: string;
  refresh_token?: string;
  id_token?: string;
  scope?: string;
  expires_in?: number;
  [field: string]: unknown;
}

/** How a token response member of the wrong type is named: null, an array, or its typeof. */
const typeName = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;

export function tokenSetOf(res: HttpResponse, what: string): TokenSet {
  const body = res.body;
  if (res.status !== 200 || typeof body.access_token !== 'string') {
    const error = typeof body.error === 'string' ? ` error=${body.error}` : '';
    throw new PreconditionError(`${what}: the token endpoint answered ${res.status}${error} instead of tokens`);
  }
  // A field of the wrong type is the target's answer, named as such, not a TypeError later on.
  const odd = ['token_type', 'refresh_token', 'id_token', 'scope'].filter(
    (f) => body[f] !== undefined && typeof body[f] !== 'string',
  );
  if (odd.length) {
    throw new PreconditionError(
      `${what}: the token response's ${odd.map((f) => `${f} is ${typeName(body[f])}`).join(', ')}, ` +
        'not a string (RFC 6749 §5.1)',
    );
  }
  return body as TokenSet;
}

/** The parts of a response that RFC 6749 §5.1 speaks of, however it was recorded. */
export interface TokenResponseParts {
  status: number;
  /** A response header by (case-insensitive) name. */
  header(name: string): string | undefined;
  /** The parsed body, undefined when it was not JSON. */
  json: unknown;
}

/**
 * What a successful token response lacks of RFC 6749 §5.1, one phrase each (empty when nothing): a JSON object
 * served as application/json, access_token and token_type (REQUIRED), and Cache-Control: no-store (MUST, in any
 * response containing tokens).
 */
export function tokenResponseDeviations(res: TokenResponseParts): string[] {
  const out: string[] = [];
  const type = res.header('content-type');
  const body = res.json;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) out.push('its body is not a JSON object');
  else {
    const b = Object.fromEntries(Object.entries(body));
    if (typeof b.access_token !== 'string' || !b.access_token)
      out.push(b.access_token === undefined ? 'it has no access_token' : 'its access_token is not a non-empty string');
    if (typeof b.token_type !== 'string' || !b.token_type)
      out.push(b.token_type === undefined ? 'it has no token_type' : 'its token_type is not a non-empty string');
  }
  if (!type || !/^application\/json\s*(;|$)/i.test(type.trim()))
    out.push(type ? `its Content-Type is ${type}, not application/json` : 'it has no Content-Type');
  const cache = res.header('cache-control');
  if (!cache || !/(^|,)\s*no-store\s*(,|$)/i.test(cache))
    out.push(cache ? `its Cache-Control is ${cache}, without no-store` : 'it has no Cache-Control: no-store');
  return out;
}
