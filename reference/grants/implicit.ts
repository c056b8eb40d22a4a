/**
 * The implicit grant (RFC 6749 §4.2, OIDC Core §3.2): deprecated (RFC 9700 §2.1.2) and opt-in,
 * for clients whose grantTypes include "implicit". Unlike the other grants it is not redeemed at
 * the token endpoint: the authorization endpoint issues the tokens once the user has signed in,
 * and they travel in the redirect's fragment. Never a refresh token (SPEC grant table).
 */
import type { ServerContext } from '../context.ts';
import type { RegisteredClient } from '../options.ts';
import type { InteractionRecord } from '../store/store.ts';
import { randomToken } from '../tokens.ts';
import { addRefreshToken, issueTokens } from './issue.ts';

/** The fragment parameters for a completed implicit request (response_type token, or id_token token). */
export async function implicitResponse(
  server: ServerContext,
  client: RegisteredClient,
  interaction: InteractionRecord & { sub: string; authTime: number },
): Promise<Record<string, string>> {
  const { sub, scope, authTime, nonce } = interaction;
  const grant = { client, sub, scope, authTime, grantId: randomToken() };
  const tokens = await issueTokens(server, { ...grant, ...(nonce === undefined ? {} : { nonce }) });
  if (server.flaws.has('implicit-issues-refresh')) await addRefreshToken(server, tokens, grant);
  // OIDC Core §3.2.2.5: the ID token (with at_hash) only when it was asked for; "token" is plain OAuth.
  const { id_token: idToken, refresh_token: refreshToken, ...rest } = tokens;
  return {
    access_token: rest.access_token,
    token_type: rest.token_type,
    expires_in: String(rest.expires_in),
    scope: rest.scope,
    ...(interaction.responseType === 'id_token token' && idToken !== undefined ? { id_token: idToken } : {}),
    ...(refreshToken === undefined ? {} : { refresh_token: refreshToken }),
  };
}
