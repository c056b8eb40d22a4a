/** The ID token of a code flow, for the scenarios that judge it (OIDC Core §3.1.3.3, §3.1.3.7). */
import {
  PreconditionError,
  type Client,
  type ClientRole,
  type ScenarioContext,
} from '../../harness/scenario/scenario.ts';
import { withOpenid } from './scope.ts';

export interface CodeFlowIdToken {
  client: Client;
  idToken: string;
  accessToken: string;
  /** The nonce sent in the authorization request. */
  nonce: string;
}

/**
 * The code flow as `role` with scope openid and a fresh nonce. No id_token is a PreconditionError:
 * code.happy-path judges its absence, the callers judge the token.
 */
export async function codeFlowIdToken(
  ctx: ScenarioContext,
  role: ClientRole = 'confidential',
): Promise<CodeFlowIdToken> {
  const client = ctx.client(role);
  const nonce = ctx.random();
  const { tokens } = await ctx.flows.tokens(role, { scope: withOpenid(client.scope), params: { nonce } });
  if (typeof tokens.id_token !== 'string' || !tokens.id_token) {
    throw new PreconditionError(
      `the code flow as ${role} with scope openid returned no id_token, so there is no ID token to judge`,
    );
  }
  return { client, idToken: tokens.id_token, accessToken: tokens.access_token, nonce };
}
