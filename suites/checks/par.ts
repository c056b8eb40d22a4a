/** Pushing an authorization request and opening its request_uri (RFC 9126 §2, §4). */
import {
  type AuthorizeResult,
  type Client,
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
