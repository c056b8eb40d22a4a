/** DPoP at the token endpoint and at userinfo (RFC 9449 §5, §7.1). */
import type {
  Client,
  DpopKey,
  DpopProofOptions,
  HttpResponse,
  ScenarioContext,
  TokenSet,
} from '../../harness/scenario/scenario.ts';
import { redeem, tokensOf } from './modern.ts';
import { hasScopeToken } from '../../protocol/scope.ts';

/** A fresh code as `client`, redeemed with a proof by `key`: the tokens must come. */
export async function dpopTokens(
  ctx: ScenarioContext,
  client: Client,
  key: DpopKey,
  scope?: string,
): Promise<TokenSet> {
  // OIDC Core §11: with offline_access, prompt=consent, or the server may ignore it.
  const offline = hasScopeToken(scope, 'offline_access');
  const code = await ctx.flows.code(
    client.role,
    scope ? { scope, ...(offline ? { params: { prompt: 'consent' } } : {}) } : {},
  );
  return tokensOf(
    await redeem(ctx, client, code, key, 'token request with a DPoP proof'),
    `redeeming the code as ${client.role} with a DPoP proof`,
  );
}

/** GET userinfo with the token in the DPoP scheme (and a proof by `key`), or as Bearer without one. */
export function userinfoWith(
  ctx: ScenarioContext,
  token: string,
  scheme: 'DPoP' | 'Bearer',
  key?: DpopKey,
  options: DpopProofOptions = {},
): Promise<HttpResponse> {
  const url = ctx.target.endpoints.userinfo ?? ctx.skip('the discovery document has no userinfo_endpoint');
  const headers: Record<string, string> = { authorization: `${scheme} ${token}` };
  if (scheme === 'DPoP' && key) headers.dpop = key.proof('GET', url, { accessToken: token, ...options });
  return ctx.http.get(url, { headers, label: `userinfo with the token as ${scheme}` });
}
