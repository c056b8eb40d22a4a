/**
 * Pushed authorization requests (RFC 9126): the request's parameters go to the PAR endpoint
 * with client authentication; the authorization endpoint then gets only client_id and the
 * request_uri it answered with (§4).
 */
import type { Client } from '../config/load.ts';
import type { HttpClient, HttpResponse } from '../http/client.ts';
import type { Params } from '../http/request.ts';
import type { PageOutcome } from '../login/driver.ts';
import { PreconditionError } from '../model/failures.ts';
import type { Target } from '../target/target.ts';

export interface PushedRequest {
  requestUri: string;
  expiresIn?: unknown;
  response: HttpResponse;
}

/** Whether the target requires PAR for every authorization request (RFC 9126 §5). */
export const requiresPar = (target: Target): boolean =>
  target.supports('metadata:require_pushed_authorization_requests');

/** POST the request to the PAR endpoint as `client`; the response as it came. */
export function pushRequest(
  http: HttpClient,
  target: Target,
  client: Client,
  params: Params,
  options: { label?: string; headers?: Record<string, string> } = {},
): Promise<HttpResponse> {
  const url = target.endpoints.pushedAuthorization;
  if (!url) throw new PreconditionError('the discovery document has no pushed_authorization_request_endpoint');
  return http.token(
    client,
    { client_id: client.clientId, ...params },
    {
      url,
      label: options.label ?? `pushed authorization request as ${client.role}`,
      ...(options.headers ? { headers: options.headers } : {}),
    },
  );
}

/** The request_uri of a successful push (RFC 9126 §2.2: 201 with request_uri and expires_in), else undefined. */
export function pushedRequestOf(res: HttpResponse): PushedRequest | undefined {
  const uri = res.body.request_uri;
  if (res.status !== 201 || typeof uri !== 'string' || !uri) return undefined;
  return { requestUri: uri, expiresIn: res.body.expires_in, response: res };
}

/** The authorization URL that refers to a pushed request (RFC 9126 §4). */
export function pushedAuthorizationUrl(target: Target, clientId: string, requestUri: string): string {
  const endpoint = target.endpoints.authorization;
  if (!endpoint) throw new PreconditionError('the discovery document has no authorization_endpoint');
  const url = new URL(endpoint);
  url.searchParams.set('client_id', clientId);
  url.searchParams.set('request_uri', requestUri);
  return url.href;
}

/** A refused push, as the page outcome ctx.authorize reports for a refused request. */
export function refusedPush(res: HttpResponse, url: string): PageOutcome {
  const error = typeof res.body.error === 'string' ? ` error=${res.body.error}` : '';
  return {
    kind: 'page',
    status: res.status,
    url,
    body: res.text,
    headline: `pushed authorization request refused${error}`,
    reason: `the pushed authorization request got HTTP ${res.status}${error}, no request_uri`,
    pages: [],
  };
}
