/**
 * The one OAuth error type (STYLE: oidc-provider's single error factory). Every error the
 * reference answers with is an OAuthError carrying its RFC code and HTTP status; anything else
 * that escapes a handler becomes `server_error` without detail (see http/errors.ts's errorHandler).
 */
import type { OAuthErrorCode } from '../protocol/errors.ts';
import type { RegistrationError } from '../protocol/registration.ts';
import { ERROR_DESCRIPTION_FORBIDDEN } from '../protocol/syntax.ts';
import { RETRY_AFTER_SECONDS, StoreUnavailableError } from './store/outage.ts';

/** RFC 6749 §4.1.2.1, §5.2; RFC 6750 §3.1; RFC 8628 §3.5; RFC 8693 §2.2.2; OIDC Core §3.1.2.6 error codes. */
export type { OAuthErrorCode } from '../protocol/errors.ts';

/** RFC 7591 §3.2.2 adds the registration endpoint's own codes (also RFC 7592 §2.2's). */
type ErrorCode = OAuthErrorCode | RegistrationError;

const DEFAULT_STATUS: Partial<Record<ErrorCode, number>> = {
  invalid_client: 401,
  invalid_token: 401,
  insufficient_scope: 403,
  server_error: 500,
  temporarily_unavailable: 503,
};

/**
 * RFC 6749 §4.1.2.1, §5.2: error_description holds only %x20-21 / %x23-5B / %x5D-7E (printable
 * ASCII without `"` and `\`). Descriptions name request values (a repeated parameter, a grant
 * type), so every one is made to fit: quotes become `'`, anything else outside the set `?`.
 */
export function errorDescription(text: string): string {
  return text
    .replace(/"/g, "'")
    .replace(/\\/g, '/')
    .replace(/[–—]/g, '-')
    .replace(/§/g, 'section ')
    .replace(ERROR_DESCRIPTION_FORBIDDEN, '?');
}

export class OAuthError extends Error {
  readonly error: ErrorCode;
  readonly status: number;
  readonly description: string;
  /** Extra response headers, e.g. WWW-Authenticate for invalid_client (RFC 6749 §5.2). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(error: ErrorCode, description: string, opts: { status?: number; headers?: Record<string, string> } = {}) {
    const text = errorDescription(description);
    super(`${error}: ${text}`);
    this.name = 'OAuthError';
    this.error = error;
    this.description = text;
    this.status = opts.status ?? DEFAULT_STATUS[error] ?? 400;
    this.headers = opts.headers ?? {};
  }

  /** The RFC 6749 §5.2 JSON body. */
  toJSON(): { error: ErrorCode; error_description: string } {
    return { error: this.error, error_description: this.description };
  }
}

export const invalidRequest = (description: string) => new OAuthError('invalid_request', description);
export const invalidGrant = (description: string) => new OAuthError('invalid_grant', description);
export const invalidScope = (description: string) => new OAuthError('invalid_scope', description);
export const unauthorizedClient = (description: string) => new OAuthError('unauthorized_client', description);

/** RFC 6749 §5.2: 401, and WWW-Authenticate matching the scheme the client used (Basic). */
export const invalidClient = (description: string) =>
  new OAuthError('invalid_client', description, {
    status: 401,
    headers: { 'WWW-Authenticate': 'Basic realm="idp-conformance", charset="UTF-8"' },
  });

/** Maps any thrown value to an OAuthError; unknown errors become a detail-free server_error. */
export function toOAuthError(err: unknown): OAuthError {
  if (err instanceof OAuthError) return err;
  // A store that is down is an outage, not a bug (store/outage.ts says where each endpoint answers so).
  if (err instanceof StoreUnavailableError) {
    return new OAuthError('temporarily_unavailable', 'the server is temporarily unavailable; try again shortly', {
      status: 503,
      headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
    });
  }
  // Koa and node errors that describe the client's fault (e.g. a malformed URL) carry a 4xx status.
  const status = typeof err === 'object' && err !== null && 'status' in err ? err.status : undefined;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const description = status === 405 ? 'method not allowed' : 'the request could not be processed';
    return new OAuthError('invalid_request', description, { status });
  }
  return new OAuthError('server_error', 'an internal error occurred');
}
