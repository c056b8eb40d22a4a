/**
 * At /auth: the authorization request's parameters, from a pushed request (RFC 9126 §4: single use, unexpired, the
 * pushing client's) or from the query where PAR is not required (§5).
 */
import type { ServerContext } from '../context.ts';
import { invalidRequest, OAuthError } from '../oauth-error.ts';
import { REQUEST_URI_PREFIX } from '../../protocol/grants.ts';

/**
 * The parameters of an authorization request at /auth: a pushed request's, by its request_uri
 * (single use, unexpired, this client's), or the query's where PAR is not required.
 */
export async function authorizationParameters(
  server: ServerContext,
  query: URLSearchParams,
): Promise<{ query: URLSearchParams; unregisteredRedirect: boolean }> {
  const { flaws } = server;
  const requestUri = query.get('request_uri');
  if (requestUri === null || !requestUri.startsWith(REQUEST_URI_PREFIX)) {
    // Flaw par-not-enforced: discovery says required, but the plain request goes through.
    if (server.security.parRequired && !flaws.has('par-not-enforced')) {
      throw invalidRequest(
        'this server requires pushed authorization requests (RFC 9126): push the request to the PAR endpoint first',
      );
    }
    return { query, unregisteredRedirect: false };
  }
  const clientId = query.get('client_id');
  if (clientId === null) throw invalidRequest('client_id is required with request_uri');
  const record = await server.store.consumePushedRequest(requestUri);
  if (!record) throw new OAuthError('invalid_request_uri', 'the request_uri is unknown, expired or already used');
  // Flaw par-request-uri-reuse: the consumed request is put back, for anyone to use again.
  if (flaws.has('par-request-uri-reuse')) await server.store.savePushedRequest(record);
  if (record.clientId !== clientId && !flaws.has('par-not-client-bound')) {
    throw new OAuthError('invalid_request_uri', 'the request_uri was pushed by another client');
  }
  const pushed = new URLSearchParams(record.params);
  for (const resource of record.resources ?? []) pushed.append('resource', resource);
  return { query: pushed, unregisteredRedirect: record.unregisteredRedirect === true };
}
