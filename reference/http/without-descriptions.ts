/**
 * The `errors-without-description` variant (reference/variants.ts): error_description is OPTIONAL everywhere
 * (RFC 6749 §4.1.2.1, §5.2; RFC 6750 §3), so the server leaves it out of every error: JSON bodies, the error
 * redirect's query or fragment, and WWW-Authenticate challenges. Applied once, to every response on its way out.
 */
import type { Context, Next } from 'koa';

const CHALLENGE_DESCRIPTION = /,?\s*error_description="[^"]*"/g;

function withoutDescription(location: string): string {
  let url: URL;
  try {
    url = new URL(location);
  } catch {
    return location;
  }
  url.searchParams.delete('error_description');
  if (url.hash) {
    const fragment = new URLSearchParams(url.hash.slice(1));
    fragment.delete('error_description');
    url.hash = fragment.toString();
  }
  return url.href;
}

export function withoutErrorDescriptions() {
  return async function errorsWithoutDescription(ctx: Context, next: Next): Promise<void> {
    await next();
    const body: unknown = ctx.body;
    if (body && typeof body === 'object' && !Buffer.isBuffer(body) && 'error_description' in body) {
      const { error_description: _, ...rest } = body;
      ctx.body = rest;
    }
    const location = String(ctx.response.get('Location') ?? '');
    if (location.includes('error_description=')) ctx.set('Location', withoutDescription(location));
    const challenge = String(ctx.response.get('WWW-Authenticate') ?? '');
    if (challenge.includes('error_description='))
      ctx.set('WWW-Authenticate', challenge.replace(CHALLENGE_DESCRIPTION, ''));
  };
}
