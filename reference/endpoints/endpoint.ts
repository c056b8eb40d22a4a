/**
 * What an endpoint is: one file per endpoint exports an Endpoint that mounts its routes and
 * names the discovery metadata it contributes. endpoints/index.ts lists them.
 */
import type Router from '@koa/router';
import type { ServerContext } from '../context.ts';

export interface Endpoint {
  mount(router: Router, server: ServerContext): void;
  /** Discovery fields this endpoint adds (OIDC Discovery §3), e.g. `token_endpoint`. */
  metadata?(server: ServerContext): Record<string, unknown>;
  /** An OpenID Connect endpoint (userinfo, end-session): not mounted on an OAuth-only server (options.oauthOnly). */
  oidcOnly?: boolean;
}
