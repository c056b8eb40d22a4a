/**
 * The types of the common flows (ctx.flows and ctx.authorize's result), apart from the scenario context
 * that carries them, so that the flows and the device flow can be read without it.
 */
import type { DeviceFlow, DeviceFlowOptions } from './device.ts';
import type { HttpResponse } from '../http/client.ts';
import type { Params } from '../http/request.ts';
import type { AuthorizeOptions, AuthorizeOutcome } from '../login/driver.ts';
import type { Pkce } from '../tokens/pkce.ts';
import type { ClientRole } from '../model/requirements.ts';
import type { TokenSet } from './token-set.ts';

/** The outcome of ctx.authorize: the driver's outcome plus the parameters that were sent. */
export type AuthorizeResult = AuthorizeOutcome & { request: Record<string, string> };

export interface CodeResult {
  code: string;
  /** The PKCE pair used (absent with `pkce: false`). */
  pkce?: Pkce;
  /** The authorization request parameters sent (state, nonce, redirect_uri, scope, …). */
  request: Record<string, string>;
  /** The redirect's parameters (code, state, iss, …). */
  response: Record<string, string>;
}

export interface CodeFlowOptions {
  scope?: string;
  /** false: send no code_challenge. Default: a fresh S256 pair. */
  pkce?: boolean;
  /** Extra or replaced authorization parameters (undefined removes a default). */
  params?: Params;
  consent?: AuthorizeOptions['consent'];
  /**
   * The IdP session to sign in with (AuthorizeOptions.session). Default: the run's shared one when
   * the flow approves and sends no `prompt` (a code is all it needs; a remembered sign-in saves a
   * login), else a fresh one.
   */
  session?: AuthorizeOptions['session'];
}

/** Common flows; a step that does not work is a PreconditionError (an `error`, not a failure). */
export interface Flows {
  /** Authorization request → login → consent → the code (with PKCE unless `pkce: false`). */
  code(role: ClientRole, options?: CodeFlowOptions): Promise<CodeResult>;
  /** The whole code flow: tokens from the token endpoint. */
  tokens(role: ClientRole, options?: CodeFlowOptions): Promise<CodeResult & { tokens: TokenSet }>;
  /** A client_credentials token. */
  clientCredentials(role: ClientRole, scope?: string): Promise<TokenSet>;
  /** The device authorization request (RFC 8628 §3.1) as `role`, answered as it came: judge it yourself. */
  deviceAuthorization(role: ClientRole, options?: DeviceFlowOptions): Promise<HttpResponse>;
  /**
   * A device flow: its device authorization response, a poller that keeps the interval, and
   * activation (the user approves or denies through the login driver).
   */
  device(role: ClientRole, options?: DeviceFlowOptions): Promise<DeviceFlow>;
}
