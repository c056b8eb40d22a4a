/**
 * ctx.client and ctx.authorizationUrl: a configured client by its declared role, and the authorization URL from the
 * client's defaults, its authorizationParams and the scenario's. ctx.authorize, which walks that URL, is
 * flows/flows.ts's Authorizer.
 */
import type { Client } from '../config/load.ts';
import type { ContextInput } from './scope.ts';
import { HarnessError, PreconditionError } from '../model/failures.ts';
import type { Params } from '../http/request.ts';
import { randomToken } from '../tokens/pkce.ts';
import type { ClientRole } from '../model/requirements.ts';
import type { ScenarioContext } from '../scenario/scenario.ts';
import type { Target } from '../target/target.ts';

/** ctx.client: a configured client by role, or a HarnessError when the scenario did not declare the role. */
export function clientLookup(input: ContextInput): (role: ClientRole) => Client {
  return (role) => {
    const c = input.run.clients[role];
    if (!c)
      throw new HarnessError(
        `scenario ${input.scenario.id} uses client role "${role}" but does not declare it in requires.roles ` +
          `(clients.${role} is not configured)`,
      );
    return c;
  };
}

/** ctx.authorizationUrl: the client's defaults, then its configured authorizationParams, then the scenario's. */
export function authorizationUrlBuilder(
  target: Target,
  client: (role: ClientRole) => Client,
): ScenarioContext['authorizationUrl'] {
  return (role, params = {}) => {
    const c = client(role);
    const endpoint = target.endpoints.authorization;
    if (!endpoint) throw new PreconditionError('the discovery document has no authorization_endpoint');
    // The configured authorizationParams (target, then client) come before the scenario's own.
    const merged: Params = {
      response_type: 'code',
      client_id: c.clientId,
      redirect_uri: c.redirectUri,
      scope: c.scope || undefined,
      state: randomToken(),
      ...c.authorizationParams,
      ...params,
    };
    // A fresh nonce on every OpenID Connect request: some IdPs require it and OIDC Core §3.1.2.1
    // always allows it. A scenario that must send none passes `nonce: undefined`.
    if (!Object.hasOwn(params, 'nonce') && (merged.scope ?? '').split(' ').includes('openid'))
      merged.nonce = randomToken();
    const request = Object.fromEntries(Object.entries(merged).filter((e): e is [string, string] => e[1] !== undefined));
    const url = new URL(endpoint);
    for (const [k, v] of Object.entries(request)) url.searchParams.set(k, v);
    return { url: url.href, request };
  };
}
