/**
 * What an endpoint is: one file per endpoint exports an Endpoint that mounts its routes and
 * names the discovery metadata it contributes. endpoints/index.ts lists them.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { ServerContext } from '../context.ts';

/** A route answered before the router: one method, one exact path (under the issuer's path). */
export interface HotPath {
  method: string;
  path: string;
  /** The same handling as the route the endpoint mounts on the router. */
  handler(ctx: Context): Promise<void>;
}

export interface Endpoint {
  mount(router: Router, server: ServerContext): void;
  /** Discovery fields this endpoint adds (OIDC Discovery §3), e.g. `token_endpoint`. */
  metadata?(server: ServerContext): Record<string, unknown>;
  /** An OpenID Connect endpoint (userinfo, end-session): not mounted on an OAuth-only server (options.oauthOnly). */
  oidcOnly?: boolean;
  /**
   * The endpoint's hot route (the token endpoint): server.ts checks its exact path first, at the top of the middleware
   * stack, and skips the router's matching for it. The route stays mounted too (other spellings, other methods).
   */
  hotPath?(server: ServerContext): HotPath;
}
