/** Response-header middleware: no-store for token responses, framing and content protections for pages. */
import type { Context, Next } from 'koa';
import type { Flaws } from '../flaws.ts';

/** RFC 6749 §5.1: token responses (and their errors) must not be cached. */
export function noStore(flaws: Flaws) {
  return async function noStoreHeaders(ctx: Context, next: Next): Promise<void> {
    if (!flaws.has('no-store-missing')) {
      ctx.set('Cache-Control', 'no-store');
      ctx.set('Pragma', 'no-cache');
    }
    await next();
  };
}

/** Every response: no MIME sniffing, no referrer (URLs here carry codes and states). */
export async function baseHeaders(ctx: Context, next: Next): Promise<void> {
  setBaseHeaders(ctx);
  await next();
}

/** baseHeaders' headers, set at once (the hot routes, server.ts). */
export function setBaseHeaders(ctx: Context): void {
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
}

/**
 * HTML pages (login, consent, errors): never framed (RFC 9700 §4.16), never cached, no scripts
 * and no external resources. form-action is left open on purpose: browsers apply it to the
 * redirect that follows a form POST, which here goes to the client's redirect_uri.
 */
export function pageHeaders(ctx: Context, flaws: Flaws, frameSources: readonly string[] = []): void {
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Pragma', 'no-cache');
  const csp = ["default-src 'none'", "style-src 'unsafe-inline'", "img-src 'self' data:", "base-uri 'none'"];
  // The logged-out page frames the clients' front-channel logout URIs (OIDC Front-Channel Logout §4), no others.
  if (frameSources.length > 0) csp.push(`frame-src ${frameSources.join(' ')}`);
  if (!flaws.has('no-frame-protection')) {
    ctx.set('X-Frame-Options', 'DENY');
    csp.push("frame-ancestors 'none'");
  }
  ctx.set('Content-Security-Policy', csp.join('; '));
  // RFC 9700 §4.2.4: baseHeaders sends Referrer-Policy: no-referrer; the flaw takes it off the pages.
  if (flaws.has('no-referrer-policy')) ctx.remove('Referrer-Policy');
}
