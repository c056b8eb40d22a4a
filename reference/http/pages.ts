/** HTML responses: pages with their security headers, and errors rendered as an error page. */
import type { Context } from 'koa';
import type { Flaws } from '../flaws.ts';
import { errorPage } from '../views/error.ts';
import { catchOAuthErrors } from './errors.ts';
import { pageHeaders } from './headers.ts';

export function renderPage(
  ctx: Context,
  flaws: Flaws,
  html: string,
  status = 200,
  frameSources: readonly string[] = [],
): void {
  pageHeaders(ctx, flaws, frameSources);
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = html;
}

/** For browser-facing routes: any error becomes an error page (never a redirect, never a stack trace). */
export function pageErrors(flaws: Flaws) {
  return catchOAuthErrors((ctx, oauth) => {
    renderPage(ctx, flaws, errorPage({ error: oauth.error, description: oauth.description }), oauth.status);
  });
}
