/**
 * Variant csrf-forms: the login and consent forms carry a CSRF token bound to a cookie (the double-submit pattern of
 * Django's csrfmiddlewaretoken, Spring Security's _csrf, Ory's csrf_token): the page sets the cookie (or reuses the
 * one the browser holds) and puts its value in a hidden field; a POST whose field and cookie are not both present and
 * equal is refused with an error page (HTTP 403), never acted on.
 */
import type { Context } from 'koa';
import type { ServerContext } from '../context.ts';
import { randomToken } from '../tokens.ts';
import { langOf, words } from '../views/locale.ts';
import { safeEqual } from '../safe-equal.ts';
import { cookieValue } from './cookies.ts';
import { OAuthError } from '../oauth-error.ts';

export const CSRF_COOKIE = 'idpc_csrf';
export const CSRF_FIELD = 'csrf_token';

/** The hidden fields a form of this page carries: the CSRF token (its cookie set when new), or none. */
export function csrfFields(ctx: Context, server: ServerContext): [string, string][] {
  if (!server.variants.has('csrf-forms')) return [];
  let token = cookieValue(ctx, CSRF_COOKIE);
  if (token === undefined || !/^[A-Za-z0-9_-]{20,100}$/.test(token)) {
    token = randomToken();
    const url = new URL(server.issuer);
    const secure = url.protocol === 'https:' ? '; Secure' : '';
    ctx.append('Set-Cookie', `${CSRF_COOKIE}=${token}; Path=${url.pathname}; HttpOnly; SameSite=Lax${secure}`);
  }
  return [[CSRF_FIELD, token]];
}

/** Refuses a form POST whose CSRF field does not match its cookie (when the variant is on). */
export function checkCsrf(ctx: Context, server: ServerContext, params: Record<string, string | undefined>): void {
  if (!server.variants.has('csrf-forms')) return;
  const cookie = cookieValue(ctx, CSRF_COOKIE);
  const field = params[CSRF_FIELD];
  if (cookie === undefined || field === undefined || !safeEqual(cookie, field))
    throw new OAuthError('invalid_request', words(langOf(server)).csrf, { status: 403 });
}
