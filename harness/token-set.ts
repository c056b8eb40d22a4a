/** A token response as set-up: the tokens, or a PreconditionError saying why there are none. */
import { PreconditionError } from './failures.ts';
import type { HttpResponse } from './http.ts';

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
