/**
 * RFC 9700 §2.6: CORS must not be supported at the authorization endpoint (the client never
 * fetches it; it sends the user agent there). The reference sends no CORS headers at all; the
 * planted flaw cors-at-authorization-endpoint answers any Origin there.
 */
import type { Context, Next } from 'koa';
import type { Flaws } from '../flaws.ts';

export function authorizationEndpointCors(flaws: Flaws) {
  return async function cors(ctx: Context, next: Next): Promise<void> {
    const origin = ctx.get('origin');
    if (flaws.has('cors-at-authorization-endpoint') && origin !== '') {
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.set('Access-Control-Allow-Credentials', 'true');
    }
    await next();
  };
}
