/** Reading the request's cookies (RFC 6265 §5.4's Cookie header): the login session's and the CSRF token's. */
import type { Context } from 'koa';

/** The value of a cookie of the request, if it was sent exactly once. */
export function cookieValue(ctx: Context, name: string): string | undefined {
  const values = ctx
    .get('cookie')
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part.startsWith(`${name}=`))
    .map((part) => part.slice(name.length + 1));
  return values.length === 1 && values[0] !== '' ? values[0] : undefined;
}
