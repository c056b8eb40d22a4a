/**
 * The middleware that answers with OAuthErrors (the error type itself is ../oauth-error.ts, which
 * imports nothing of http/, so that every level of the reference may throw it).
 */
import type { Context, Next } from 'koa';
import type { Flaws } from '../flaws.ts';
import { type OAuthError, toOAuthError } from '../oauth-error.ts';

/**
 * Middleware that catches every error below it and answers with `respond`. Unknown errors are
 * reported to the app's error listeners and answered as a detail-free server_error.
 */
export function catchOAuthErrors(respond: (ctx: Context, error: OAuthError) => void) {
  return async function oauthErrors(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
    } catch (err) {
      const oauth = toOAuthError(err);
      if (oauth.error === 'server_error') ctx.app.emit('error', err, ctx);
      respond(ctx, oauth);
    }
  };
}

/** Outermost middleware: every error becomes an RFC 6749 §5.2 JSON body, never a stack trace. */
export function errorHandler(flaws: Flaws) {
  return catchOAuthErrors((ctx, oauth) => {
    ctx.status = oauth.status;
    ctx.set(oauth.headers);
    if (flaws.has('error-format-wrong')) {
      ctx.type = 'text/plain';
      ctx.body = `Error: ${oauth.description}`;
      return;
    }
    ctx.body = oauth.toJSON();
  });
}
