/**
 * The flows most scenarios start from. They are set-up, not the check: a step that does not work
 * is a PreconditionError, so the scenario reports `error` with the cause instead of blaming the
 * requirement it was about to test.
 */
import { type DeviceFlowContext, requestDeviceAuthorization, startDeviceFlow } from './device.ts';
import { PreconditionError } from '../scenario/failures.ts';
import { createPkce } from '../tokens/pkce.ts';
import { tokenSetOf } from './token-set.ts';
import type { ClientRole } from '../scenario/requirements.ts';
import type { AuthorizeResult, CodeFlowOptions, CodeResult, Flows } from './types.ts';
import type { AuthorizeOptions } from '../login/driver.ts';
import type { Params } from '../http/request.ts';
import { GRANT } from '../target/target.ts';

/** What the flows use of the scenario's context (ScenarioContext has all of it). */
export interface FlowContext extends DeviceFlowContext {
  authorize(role: ClientRole, params?: Params, options?: AuthorizeOptions): Promise<AuthorizeResult>;
}

export function describeOutcome(outcome: AuthorizeResult): string {
  if (outcome.kind === 'redirect') {
    const { error, error_description: d } = outcome.params;
    if (error) return `redirected with error=${error}${d ? ` (${d})` : ''}`;
    return outcome.params.code ? 'redirected with a code' : 'redirected without a code';
  }
  const headline = outcome.headline ? ` "${outcome.headline}"` : '';
  return `stopped at ${outcome.url} (HTTP ${outcome.status}${headline}): ${outcome.reason}`;
}

/**
 * Whether a code flow may start from the run's shared session: only without prompt. Any prompt starts fresh, and so
 * does a deny. prompt=consent alone asks for a consent page, not a sign-in (OIDC Core §3.1.2.1), but while it shared
 * the session, oidc-provider once answered a consent interaction with HTTP 500 under load (never seen with fresh
 * sessions; the cause is not proven): such a flow gets a session of its own.
 */
export function sharesSignIn(prompt: string | undefined): boolean {
  return prompt === undefined;
}

export function createFlows(ctx: FlowContext): Flows {
  const code = async (role: ClientRole, options: CodeFlowOptions = {}): Promise<CodeResult> => {
    const pkce = options.pkce === false ? undefined : createPkce();
    const outcome = await ctx.authorize(
      role,
      {
        ...(options.scope ? { scope: options.scope } : {}),
        ...(pkce ? { code_challenge: pkce.challenge, code_challenge_method: pkce.method } : {}),
        ...options.params,
      },
      {
        ...(options.consent ? { consent: options.consent } : {}),
        session:
          options.session ?? (options.consent !== 'deny' && sharesSignIn(options.params?.prompt) ? 'shared' : 'fresh'),
      },
    );
    if (outcome.kind !== 'redirect' || !outcome.params.code) {
      throw new PreconditionError(
        `the authorization request as ${role} ${describeOutcome(outcome)}; a code was needed to go on`,
      );
    }
    return { code: outcome.params.code, ...(pkce ? { pkce } : {}), request: outcome.request, response: outcome.params };
  };
  return {
    code,
    async tokens(role, options = {}) {
      const got = await code(role, options);
      const res = await ctx.http.token(
        ctx.client(role),
        {
          grant_type: GRANT.code,
          code: got.code,
          redirect_uri: got.request.redirect_uri,
          code_verifier: got.pkce?.verifier,
        },
        { label: 'token request (authorization_code)' },
      );
      const tokens = tokenSetOf(res, `redeeming the code as ${role}`);
      // Observed behaviour is evidence too: a refresh token enables the refresh scenarios for this client.
      if (tokens.refresh_token)
        ctx.target.observe(role, 'grant:refresh_token', `a refresh_token in a token response to the ${role} client`);
      return { ...got, tokens };
    },
    async clientCredentials(role, scope) {
      const client = ctx.client(role);
      const res = await ctx.http.token(client, {
        grant_type: GRANT.clientCredentials,
        scope: scope ?? (client.scope || undefined),
      });
      return tokenSetOf(res, `client_credentials as ${role}`);
    },
    deviceAuthorization: (role, options) => requestDeviceAuthorization(ctx, role, options),
    device: (role, options) => startDeviceFlow(ctx, role, options),
  };
}
