/** Pushing an authorization request and opening its request_uri (RFC 9126 §2, §4). */
import {
  type AuthorizeResult,
  type Client,
  type Requirement,
  type ScenarioRequires,
  type HttpResponse,
  type PushedRequest,
  type RequirementRef,
  type ScenarioContext,
  CheckFailure,
  PreconditionError,
  pushRequest,
  pushedAuthorizationUrl,
  pushedRequestOf,
} from '../../harness/scenario/scenario.ts';
import { describeResponse } from './oauth.ts';

export interface Pushed extends PushedRequest {
  /** The authorization request's parameters as pushed. */
  request: Record<string, string>;
  verifier: string;
}

/**
 * Push a sound code request (S256) as `client`. A push that is not answered 201 with a request_uri
 * fails per `per` (RFC 9126 §2.2, where the scenario judges the push); without `per` the push is a
 * set-up step, and its failure an error, not a verdict.
 */
export async function pushCodeRequest(ctx: ScenarioContext, client: Client, per?: RequirementRef): Promise<Pushed> {
  const pkce = ctx.pkce.create();
  const { request } = ctx.authorizationUrl(client.role, {
    code_challenge: pkce.challenge,
    code_challenge_method: pkce.method,
    nonce: ctx.random(),
  });
  const res = await pushRequest(ctx.http, ctx.target, client, request);
  const pushed = pushedRequestOf(res);
  if (!pushed) {
    const what = `a sound pushed authorization request as ${client.role} got ${describeResponse(res)}`;
    if (!per) throw new PreconditionError(`${what}; a request_uri (HTTP 201, RFC 9126 §2.2) was needed to go on`);
    throw new CheckFailure(`A${what.slice(1)}; ${per.label} requires HTTP 201 with a request_uri.`, {
      requirement: per,
      kind: 'refused-wrongly',
    });
  }
  return { ...pushed, request, verifier: pkce.verifier };
}

/** Open the authorization endpoint with `clientId` and the request_uri; never leaves the IdP's origin. */
export async function openPushed(
  ctx: ScenarioContext,
  clientId: string,
  requestUri: string,
  stopAt: readonly (string | undefined)[],
): Promise<AuthorizeResult> {
  const url = pushedAuthorizationUrl(ctx.target, clientId, requestUri);
  const outcome = await ctx.login.authorize(
    url,
    stopAt.filter((u): u is string => !!u),
    { stayWithin: ctx.target.issuer, session: 'shared' },
  );
  return { ...outcome, request: { client_id: clientId, request_uri: requestUri } };
}

/** The push worked and its request_uri gets a code: the set-up of the reuse and binding checks. */
export async function pushedCode(
  ctx: ScenarioContext,
  client: Client,
  per?: RequirementRef,
): Promise<{ pushed: Pushed; code: string }> {
  const pushed = await pushCodeRequest(ctx, client, per);
  const outcome = await openPushed(ctx, client.clientId, pushed.requestUri, [client.redirectUri]);
  if (outcome.kind !== 'redirect' || !outcome.params.code) {
    throw new PreconditionError(
      `the authorization request by request_uri ` +
        `as ${client.role} ` +
        `${
          outcome.kind === 'redirect'
            ? `redirected with ${outcome.params.error ?? 'no code'}`
            : `stopped: ${outcome.reason}`
        }; a code was needed to go on`,
    );
  }
  return { pushed, code: outcome.params.code };
}

/** A push as it goes on the wire, not yet sent: where it goes, its headers (client authentication), its fields. */
export interface PushParts {
  url: string;
  headers: Record<string, string>;
  fields: Record<string, string>;
}

/**
 * The push pushCodeRequest would send as `client` (a sound code request, S256), not sent, so that a scenario can send
 * it changed: its fields in the query string of a GET, or one of them twice. A client with a secret authenticates with
 * HTTP Basic where it may, so that the secret stays out of a URI.
 */
export function soundPush(ctx: ScenarioContext, client: Client): PushParts {
  const url = ctx.target.endpoints.pushedAuthorization;
  if (!url) throw new PreconditionError('the discovery document has no pushed_authorization_request_endpoint');
  const pkce = ctx.pkce.create();
  const { request } = ctx.authorizationUrl(client.role, {
    code_challenge: pkce.challenge,
    code_challenge_method: pkce.method,
    nonce: ctx.random(),
  });
  const basic =
    client.clientSecret !== undefined &&
    (client.authMethod === 'client_secret_basic' || ctx.target.supports('auth:client_secret_basic'));
  const push = ctx.http.tokenRequest(
    client,
    { client_id: client.clientId, ...request },
    { url, encoding: 'form', ...(basic ? { auth: 'client_secret_basic' as const } : {}) },
  );
  const fields = Object.fromEntries(
    Object.entries(push.form ?? {}).filter((e): e is [string, string] => e[1] !== undefined),
  );
  return { url, headers: push.headers ?? {}, fields };
}

/** FAPI 2.0's PAR sentence, which makes RFC 9126's rules for the endpoint requirements of the fapi2 profile. */
export const FAPI2_PAR: Requirement = {
  spec: 'FAPI 2.0 SP',
  section: '5.3.2.2',
  level: 'MUST',
  party: 'server',
  note: 'client-authenticated pushed authorization requests according to RFC 9126',
};

/** What a probe of the PAR endpoint needs: the endpoint, and any code-flow client to push as (codeFlowClient). */
export const PAR_PROBE_REQUIRES: ScenarioRequires = {
  optionalRoles: ['keyed', 'confidential', 'public', 'confidential2'],
  capabilities: ['endpoint:pushedAuthorization'],
};

/** The roles that may push as a private_key_jwt client with a private key the server registered. */
export const KEYED_PUSH_ROLES = ['keyed', 'confidential2'] as const;

/**
 * What a probe of the PAR endpoint as a private_key_jwt client needs: the roles soundPush may push as
 * (PAR_PROBE_REQUIRES); only a private_key_jwt one among KEYED_PUSH_ROLES is chosen.
 */
export const KEYED_PAR_PROBE_REQUIRES: ScenarioRequires = {
  optionalRoles: PAR_PROBE_REQUIRES.optionalRoles ?? [],
  capabilities: ['endpoint:pushedAuthorization', 'auth:private_key_jwt'],
};

/** How the PAR endpoint took a push it should have refused (a 2xx, with a request_uri or not), or undefined. */
export function pushTaken(res: HttpResponse): string | undefined {
  if (pushedRequestOf(res)) return `HTTP ${res.status} and a request_uri`;
  return res.status >= 200 && res.status < 300 ? describeResponse(res) : undefined;
}
