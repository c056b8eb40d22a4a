/**
 * Bearer tokens at a protected resource (RFC 6750): where the token may be sent, and the errors
 * with their WWW-Authenticate challenge (§3).
 */
import type { Context } from 'koa';
import { parseBody } from './body.ts';
import { OAuthError, errorDescription } from '../oauth-error.ts';

const REALM = 'idp-conformance';

/** RFC 6750 §2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=". */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

type BearerErrorCode = 'invalid_request' | 'invalid_token' | 'insufficient_scope';

const STATUS: Record<BearerErrorCode, number> = { invalid_request: 400, invalid_token: 401, insufficient_scope: 403 };

/** RFC 6750 §3, §3.1: the error and its challenge; `scope` names what an insufficient token lacks. */
export function bearerError(error: BearerErrorCode, description: string, scope?: string): OAuthError {
  const params = [`realm="${REALM}"`, `error="${error}"`, `error_description="${errorDescription(description)}"`];
  if (scope !== undefined) params.push(`scope="${quotable(scope)}"`);
  return new OAuthError(error, description, {
    status: STATUS[error],
    headers: { 'WWW-Authenticate': `Bearer ${params.join(', ')}` },
  });
}

/** RFC 6750 §3: a request without any token gets the challenge alone, with no error code. */
export function bearerChallenge(ctx: Context): void {
  ctx.status = 401;
  ctx.set('WWW-Authenticate', `Bearer realm="${REALM}"`);
}

/**
 * The access token of the request: from `Authorization: Bearer` (§2.1) or, in a POST with a
 * form body, from `access_token` (§2.2). Undefined when there is none; a token sent in more than
 * one way is invalid_request (§2). Tokens in the query string (§2.3) are refused: URLs are logged.
 */
export async function bearerToken(ctx: Context): Promise<string | undefined> {
  const fromHeader = tokenFromHeader(ctx.get('authorization'));
  if (new URLSearchParams(ctx.querystring).has('access_token')) {
    throw bearerError('invalid_request', 'access tokens are not accepted in the query string');
  }
  const fromBody =
    ctx.method === 'POST' && ctx.is('application/x-www-form-urlencoded') ? await tokenFromBody(ctx) : undefined;
  if (fromHeader !== undefined && fromBody !== undefined) {
    throw bearerError('invalid_request', 'the access token was sent in more than one way');
  }
  return fromHeader ?? fromBody;
}

/** Another scheme (say Basic) is no Bearer token at all (§3.1: no error code then). */
function tokenFromHeader(header: string): string | undefined {
  const match = /^bearer(?:\s+(.*))?$/i.exec(header.trim());
  if (!match) return undefined;
  const token = (match[1] ?? '').trim();
  if (token === '') throw bearerError('invalid_request', 'the Bearer credentials are empty');
  if (!B64TOKEN.test(token)) throw bearerError('invalid_token', 'the Bearer token is malformed');
  return token;
}

async function tokenFromBody(ctx: Context): Promise<string | undefined> {
  try {
    return (await parseBody(ctx, ['form'])).access_token;
  } catch (err) {
    if (err instanceof OAuthError) throw bearerError('invalid_request', err.description);
    throw err;
  }
}

/** A quoted-string may not hold `"` or `\` unescaped (errorDescription leaves neither in a description). */
const quotable = (text: string) => text.replace(/["\\]/g, "'");
