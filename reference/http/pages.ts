/** HTML responses: pages with their security headers, and errors rendered as an error page. */
import type { Context, Next } from 'koa';
import type { Flaws } from '../flaws.ts';
import { errorPage } from '../views/error.ts';
import { toOAuthError } from './errors.ts';
import { pageHeaders } from './headers.ts';

export function renderPage(ctx: Context, flaws: Flaws, html: string, status = 200): void {
  pageHeaders(ctx, flaws);
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = html;
}

/** For browser-facing routes: any error becomes an error page (never a redirect, never a stack trace). */
export function pageErrors(flaws: Flaws) {
  return async function errorsAsPage(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
    } catch (err) {
      const oauth = toOAuthError(err);
      if (oauth.error === 'server_error') ctx.app.emit('error', err, ctx);
      renderPage(ctx, flaws, errorPage({ error: oauth.error, description: oauth.description }), oauth.status);
    }
  };
}
