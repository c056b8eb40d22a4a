/** The `slow` variant (reference/variants.ts): every response waits before it leaves, as a distant IdP's would. */
import type { Context, Next } from 'koa';

/** The default delay: about what a hosted IdP 250 ms from the runner adds to every request. */
export const SLOW_MS = 250;

export function slowResponses(ms: number) {
  return async function slow(_ctx: Context, next: Next): Promise<void> {
    await next();
    await new Promise((done) => setTimeout(done, ms));
  };
}
