/**
 * What a grant is: one file per grant type exports `{ grantType, parameters, handler }`
 * (STYLE: oidc-provider's lib/actions/grants). The token endpoint has already parsed the body,
 * authenticated the client and checked that the client may use the grant; the handler sees only
 * the parameters on its allow-list.
 */
import type { Context } from 'koa';
import type { ServerContext } from '../context.ts';
import type { Params } from '../http/body.ts';
import type { RegisteredClient } from '../options.ts';

/** RFC 6749 §5.1 (and OIDC Core §3.1.3.3) successful token response. */
export interface TokenResponse {
  access_token: string;
  /** DPoP for a token bound to a DPoP proof's key (RFC 9449 §5). */
  token_type?: 'Bearer' | 'bearer' | 'DPoP';
  expires_in: number;
  /** RFC 6749 §5.1: OPTIONAL when identical to the scope requested (left out then by token-scope-omitted). */
  scope?: string;
  refresh_token?: string;
  id_token?: string;
  /** RFC 8693 §2.2.1 (token exchange). */
  issued_token_type?: string;
}

export interface GrantRequest {
  ctx: Context;
  server: ServerContext;
  client: RegisteredClient;
  /** Only the parameters named in the grant's `parameters` list. */
  params: Params;
}

export interface Grant {
  /** The grant_type value (RFC 6749 §4, or a URN such as RFC 8628's). */
  grantType: string;
  /** Allow-list of the grant's own parameters; grant_type and client authentication are handled before. */
  parameters: readonly string[];
  /** A deprecated grant (RFC 9700 §2.4) is listed in discovery only when some client enables it. */
  deprecated?: boolean;
  handler(request: GrantRequest): Promise<TokenResponse>;
}
