/** A token response as set-up: the tokens, or a PreconditionError saying why there are none. */
import { PreconditionError } from './failures.ts';
import type { HttpResponse } from './http.ts';
import type { TokenSet } from './scenario.ts';

export function tokenSetOf(res: HttpResponse, what: string): TokenSet {
  const body = res.body;
  if (res.status !== 200 || typeof body.access_token !== 'string') {
    const error = typeof body.error === 'string' ? ` error=${body.error}` : '';
    throw new PreconditionError(`${what}: the token endpoint answered ${res.status}${error} instead of tokens`);
  }
  return body as TokenSet;
}
