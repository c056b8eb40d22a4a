/**
 * ctx.client, ctx.authorizationUrl and ctx.authorize: a configured client by its declared role, the
 * authorization URL from the client's defaults, its authorizationParams and the scenario's, and one
 * authorization pushed first (RFC 9126) when asked or required, then walked by a login driver (again
 * on a fresh session when a shared one stops short).
 */
import type { Client } from '../config/load.ts';
import type { ContextInput, Scope } from './scope.ts';
import { HarnessError, PreconditionError } from '../scenario/failures.ts';
import type { HttpClient } from '../http/client.ts';
import type { Params } from '../http/request.ts';
import type { AuthorizeOptions, LoginDriver } from '../login/driver.ts';
import { pushRequest, pushedAuthorizationUrl, pushedRequestOf, refusedPush, requiresPar } from '../flows/par.ts';
import { randomToken } from '../tokens/pkce.ts';
import type { ClientRole } from '../scenario/requirements.ts';
import type { AuthorizeResult, ScenarioContext } from '../scenario/scenario.ts';
import { WALK_RECORD, sharedOrFresh } from '../flows/shared-walk.ts';
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

interface AuthorizeParts {
  http: HttpClient;
  target: Target;
  client: (role: ClientRole) => Client;
  authorizationUrl: ScenarioContext['authorizationUrl'];
}

/**
 * ctx.authorize through a given driver: pushed first (RFC 9126) when asked or required, then walked; a walk from
 * the run's shared session that does not reach the redirect URI is done again, pushed again, on a fresh one
 * (shared-walk.ts).
 */
export function authorizer(
  { input, recorder, log }: Scope,
  http: HttpClient,
  client: (role: ClientRole) => Client,
  authorizationUrl: ScenarioContext['authorizationUrl'],
) {
  const parts: AuthorizeParts = { http, target: input.run.target, client, authorizationUrl };
  const record = (text: string): void => {
    recorder.add({ kind: 'note', label: WALK_RECORD, text });
    log.push(`${WALK_RECORD}: ${text}`);
  };
  return (driverOf: () => LoginDriver): ScenarioContext['authorize'] =>
    (role, params: Params = {}, options = {}): Promise<AuthorizeResult> =>
      sharedOrFresh(
        options,
        input.run.session,
        async (opts) => {
          const outcome = await authorizeOnce(parts, driverOf(), role, params, opts);
          // A form_post's fields came in a page body, where the redactor learns nothing by itself.
          if (outcome.kind === 'redirect' && outcome.formFields) recorder.learnIssued(outcome.formFields);
          return outcome;
        },
        record,
        input.signal,
      );
}

/** One authorization: the request built (pushed first when asked or required) and walked by the driver. */
async function authorizeOnce(
  { http, target, client, authorizationUrl }: AuthorizeParts,
  driver: LoginDriver,
  role: ClientRole,
  params: Params,
  options: AuthorizeOptions,
): Promise<AuthorizeResult> {
  let { url, request } = authorizationUrl(role, params);
  const stopAt = [request.redirect_uri, client(role).redirectUri].filter((u): u is string => !!u);
  // RFC 9126: pushed first when asked, or when the target requires it of every request.
  if (options.par ?? requiresPar(target)) {
    const res = await pushRequest(http, target, client(role), request);
    const pushed = pushedRequestOf(res);
    if (!pushed) return { ...refusedPush(res, res.url), request };
    url = pushedAuthorizationUrl(target, client(role).clientId, pushed.requestUri);
  }
  const outcome = await driver.authorize(url, stopAt, options);
  return { ...outcome, request };
}
