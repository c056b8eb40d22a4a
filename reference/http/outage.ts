/** Every 503 this server answers asks the client to come back: Retry-After (RFC 9110 §10.2.3), whoever set the 503. */
import type { Context, Next } from 'koa';
import { RETRY_AFTER_SECONDS } from '../store/outage.ts';

export async function retryAfterOn503(ctx: Context, next: Next): Promise<void> {
  await next();
  if (ctx.status === 503 && !ctx.response.get('Retry-After')) ctx.set('Retry-After', String(RETRY_AFTER_SECONDS));
}
