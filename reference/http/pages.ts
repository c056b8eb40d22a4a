/** HTML responses: pages with their security headers, and errors rendered as an error page. */
import type { Context } from 'koa';
import type { Flaws } from '../flaws.ts';
import type { ServerContext } from '../context.ts';
import { errorPage } from '../views/error.ts';
import { langOf } from '../views/locale.ts';
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
export function pageErrors(server: Pick<ServerContext, 'flaws' | 'variants'>) {
  return catchOAuthErrors((ctx, oauth) => {
    const view = { error: oauth.error, description: oauth.description, lang: langOf(server) };
    renderPage(ctx, server.flaws, errorPage(view), oauth.status);
  });
}
