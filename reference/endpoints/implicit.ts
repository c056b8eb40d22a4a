/**
 * The implicit grant (RFC 6749 §4.2, OIDC Core §3.2) and the hybrid flow (OIDC Core §3.3): deprecated (RFC 9700
 * §2.1.2) and opt-in, for clients whose grantTypes include "implicit" (and "authorization_code" for the hybrid
 * response types). Unlike the grants in ../grants/ it is not redeemed at the token endpoint: the authorization
 * endpoint issues the tokens once the user has signed in, and they travel in the redirect's fragment (or a
 * form_post), so it lives here beside the authorization response. Never a refresh token (SPEC grant table).
 */
import { requestedClaimValues } from '../claims-request.ts';
import type { ServerContext } from '../context.ts';
import { issueCode, responseParts } from './authorization-response.ts';
import { invalidRequest } from '../oauth-error.ts';
import type { RegisteredClient } from '../options.ts';
import type { InteractionRecord } from '../store/store.ts';
import { randomToken } from '../tokens.ts';
import { addRefreshToken, issueTokens } from '../grants/issue.ts';

/**
 * The response parameters for a completed implicit or hybrid request: the code (hybrid), the access token (token),
 * the ID token (id_token) with at_hash when an access token comes with it and c_hash when a code does (OIDC Core
 * §3.2.2.5, §3.3.2.5, §3.3.2.11).
 */
export async function implicitResponse(
  server: ServerContext,
  client: RegisteredClient,
  interaction: InteractionRecord & { sub: string; authTime: number },
): Promise<Record<string, string>> {
  const { sub, scope, authTime, nonce } = interaction;
  const parts = responseParts(interaction.responseType);
  const code = parts.code ? await issueCode(server, interaction) : undefined;
  const front = {
    frontChannel: true,
    ...(nonce === undefined ? {} : { nonce }),
    ...(code === undefined ? {} : { code }),
  };
  if (!parts.token) {
    // id_token or code id_token: an ID token and no access token (OIDC Core §3.2.2.5, §3.3.2.5).
    const user = server.userBySub(sub);
    if (!user) throw invalidRequest('the signed-in user is unknown');
    const idToken = await server.tokens.idToken({
      client,
      user,
      scope,
      authTime,
      ...front,
      ...(interaction.claims?.idToken === undefined
        ? {}
        : { requested: requestedClaimValues(user, interaction.claims.idToken) }),
    });
    return { ...(code === undefined ? {} : { code }), id_token: idToken };
  }
  const grant = { client, sub, scope, authTime, grantId: randomToken() };
  const tokens = await issueTokens(server, {
    ...grant,
    ...front,
    ...(interaction.claims === undefined ? {} : { claims: interaction.claims }),
  });
  if (server.flaws.has('implicit-issues-refresh')) await addRefreshToken(server, tokens, grant);
  // OIDC Core §3.2.2.5, §3.3.2.5: the ID token only when it was asked for; "token" and "code token" carry none.
  const { id_token: idToken, refresh_token: refreshToken, ...rest } = tokens;
  return {
    ...(code === undefined ? {} : { code }),
    access_token: rest.access_token,
    // Flaw token-type-missing: the token response has none, and the redirect says so as it always did ("undefined").
    token_type: String(rest.token_type),
    expires_in: String(rest.expires_in),
    scope,
    ...(parts.idToken && idToken !== undefined ? { id_token: idToken } : {}),
    ...(refreshToken === undefined ? {} : { refresh_token: refreshToken }),
  };
}
