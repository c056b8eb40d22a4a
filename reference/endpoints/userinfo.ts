/**
 * GET and POST /userinfo (OIDC Core §5.3): the claims the token's scope releases, with the ID
 * token's sub. The token is a Bearer token (RFC 6750) verified like every presented token;
 * errors carry the Bearer challenge (RFC 6750 §3.1).
 */
import type { Context } from 'koa';
import type { ServerContext } from '../context.ts';
import { bearerChallenge, bearerError, bearerToken } from '../http/bearer.ts';
import { checkSenderConstraint, dpopSchemeToken } from '../http/dpop.ts';
import { noStore } from '../http/headers.ts';
import { requestedClaimValues } from '../claims-request.ts';
import { claimsForScope, hasScope } from '../scopes.ts';
import { InvalidTokenError, verifyPresentedAccessToken, type VerifiedAccessToken } from '../verify.ts';
import type { Endpoint } from './endpoint.ts';

export const userinfoEndpoint: Endpoint = {
  mount(router, server) {
    const handler = (ctx: Context) => userinfo(ctx, server);
    router.get('/userinfo', noStore(server.flaws), handler);
    // OIDC Core §5.3.1: the UserInfo Endpoint MUST support GET and POST.
    if (!server.flaws.has('userinfo-get-only')) router.post('/userinfo', noStore(server.flaws), handler);
  },
  metadata: (server) => ({ userinfo_endpoint: server.url('/userinfo') }),
  oidcOnly: true,
};

async function userinfo(ctx: Context, server: ServerContext): Promise<void> {
  const dpopToken = dpopSchemeToken(ctx);
  const token = dpopToken ?? (await bearerToken(ctx));
  if (token === undefined) return bearerChallenge(ctx);
  const { claims } = await verified(server, token);
  // RFC 9068 §4: a token restricted to another resource (RFC 8707) is not for userinfo.
  if (![claims.aud].flat().includes(server.issuer))
    throw bearerError('invalid_token', 'the token is for another resource');
  await checkSenderConstraint(
    ctx,
    server,
    claims,
    token,
    dpopToken === undefined ? 'Bearer' : 'DPoP',
    server.url('/userinfo'),
  );
  const requested = (await server.store.findAccessToken(claims.jti))?.record.userinfoClaims;
  // OIDC Core §5.3: userinfo is an OpenID resource; a token without openid may not read it.
  if (!hasScope(claims.scope, 'openid'))
    throw bearerError('insufficient_scope', 'the token was not granted the openid scope', 'openid');
  const user = server.userBySub(claims.sub);
  if (!user) throw bearerError('invalid_token', 'the token was not issued for a user');
  ctx.body = {
    ...claimsForScope(user, claims.scope, server.flaws, server.options.scopeClaims),
    ...requestedClaimValues(user, requested),
    sub: user.sub,
  };
}

async function verified(server: ServerContext, token: string): Promise<VerifiedAccessToken> {
  try {
    return await verifyPresentedAccessToken(server, token);
  } catch (err) {
    if (err instanceof InvalidTokenError) throw bearerError('invalid_token', err.message);
    throw err;
  }
}
