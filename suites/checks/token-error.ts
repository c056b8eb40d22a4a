/**
 * The token endpoint's error response format (RFC 6749 §5.2): HTTP 400 (401 for invalid_client),
 * an application/json object with an `error` from the §5.2 set, and error_description and
 * error_uri, when present, within their character sets.
 */
import { CheckFailure, type HttpResponse } from '../../harness/scenario/scenario.ts';
import type { Rule } from './oauth.ts';
import { TOKEN_ERROR_CODES } from '../../protocol/errors.ts';
import { ERROR_DESCRIPTION_FORMAT, ERROR_URI_FORMAT } from '../../protocol/syntax.ts';
import { isOneOf } from '../../protocol/guards.ts';

/** The error codes of RFC 6749 §5.2. */
export { TOKEN_ERROR_CODES } from '../../protocol/errors.ts';

export interface TokenErrorFormatOptions {
  /** Statuses allowed besides 400 (and 401 with invalid_client), e.g. 413 for an oversized body. */
  alsoStatus?: readonly number[];
}

/** Why the response is not an RFC 6749 §5.2 error, or undefined when it is one. */
export function tokenErrorFormatProblem(res: HttpResponse, options: TokenErrorFormatOptions = {}): string | undefined {
  const b = res.body;
  // An oversized body refused before it is read: 413 (RFC 9110 §15.5.14), from the IdP or a proxy in
  // front of it, which knows nothing of OAuth and answers in its own format. A valid refusal.
  if (res.status === 413 && options.alsoStatus?.includes(413)) return undefined;
  if (res.status >= 200 && res.status < 300) {
    return `HTTP ${res.status}${typeof b.access_token === 'string' ? ' with an access_token' : ''} instead of an error`;
  }
  const type = res.header('content-type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type))
    return `HTTP ${res.status} with ${type ? `Content-Type ${type}` : 'no Content-Type'}, not application/json`;
  if (res.json === undefined || typeof res.json !== 'object' || res.json === null || Array.isArray(res.json))
    return `HTTP ${res.status} whose body is not a JSON object`;
  const error = b.error;
  if (typeof error !== 'string') return `HTTP ${res.status} whose JSON has no "error" string`;
  if (!isOneOf(TOKEN_ERROR_CODES, error))
    return `HTTP ${res.status} with error=${error}, which is not an RFC 6749 §5.2 code`;
  const statuses = [400, ...(error === 'invalid_client' ? [401] : []), ...(options.alsoStatus ?? [])];
  if (!statuses.includes(res.status))
    return `HTTP ${res.status} with error=${error}, where ${statuses.join(' or ')} belongs`;
  const description = b.error_description;
  const descriptionValid = typeof description === 'string' && ERROR_DESCRIPTION_FORMAT.test(description);
  if (description !== undefined && !descriptionValid) {
    return (
      `error=${error} with an ` +
      `error_description ` +
      `${
        typeof description === 'string'
          ? `holding characters outside %x20-21 / %x23-5B / %x5D-7E (${JSON.stringify(description.slice(0, 120))})`
          : 'that is not a string'
      }`
    );
  }
  const uri = b.error_uri;
  if (uri !== undefined && (typeof uri !== 'string' || !ERROR_URI_FORMAT.test(uri) || !URL.canParse(uri)))
    return `error=${error} with an error_uri that is not a URI`;
  return undefined;
}

/** An RFC 6749 §5.2 error response (see tokenErrorFormatProblem). */
export function expectTokenErrorFormat(res: HttpResponse, rule: Rule, options: TokenErrorFormatOptions = {}): void {
  const problem = tokenErrorFormatProblem(res, options);
  if (problem) {
    throw new CheckFailure(
      `${rule.when} got ${problem}; ${rule.per.label} requires HTTP 400 (401 for invalid_client) with an ` +
        `application/json error object from its set.`,
      {
        requirement: rule.per,
        kind: res.status >= 200 && res.status < 300 ? 'accepted' : 'refused-wrongly',
      },
    );
  }
}
