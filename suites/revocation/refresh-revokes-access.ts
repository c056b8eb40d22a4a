import { CheckFailure, defineScenario, GRANT, PreconditionError } from '../../harness/scenario/scenario.ts';
import {
  describeResponse,
  offlineCodeFlow,
  revocationRequest,
  tokenProbe,
  tokensWithRefreshToken,
} from '../checks/index.ts';

const ROLE = 'confidential';

export default defineScenario({
  id: 'revocation.refresh-revokes-access',
  title: 'Revoking a refresh token also invalidates the access tokens of the same grant',
  requirements: {
    rfc7009_2_1: {
      spec: 'RFC 7009',
      section: '2.1',
      level: 'SHOULD',
      party: 'server',
      note: "a refresh token's revocation also invalidates its grant's access tokens (if it revokes access tokens)",
    },
  },
  severity: 'medium',
  appliesTo: 'oauth2',
  requires: {
    roles: [ROLE],
    user: true,
    capabilities: [
      'grant:authorization_code',
      'grant:refresh_token',
      'endpoint:authorization',
      'endpoint:token',
      'endpoint:revocation',
    ],
  },
  catches: ['revocation-keeps-access'],
  async run(ctx) {
    const probe = tokenProbe(ctx, ROLE);
    if (probe.where === 'at the token endpoint (refresh)')
      ctx.skip('the target has neither introspection nor userinfo: an access token cannot be seen to work or not');
    const { tokens } = await tokensWithRefreshToken(ctx, ROLE);
    const before = await probe.works(tokens);
    if (!before.works)
      throw new PreconditionError(`the access token just issued did not work ${probe.where} (${before.answer})`);

    const revoked = await revocationRequest(ctx, ROLE, tokens.refresh_token, 'refresh_token');
    if (revoked.status !== 200)
      throw new PreconditionError(`revoking the refresh token answered ${describeResponse(revoked)}`);
    const refresh = await ctx.http.token(
      ctx.client(ROLE),
      { grant_type: GRANT.refresh, refresh_token: tokens.refresh_token },
      { label: 'refresh with the revoked refresh token' },
    );
    if (refresh.status === 200)
      ctx.skip('the refresh token itself still works after its revocation (revocation.refresh-token judges that)');

    const after = await probe.works(tokens);
    if (!after.works) {
      ctx.evidence.note(`The access token of the revoked grant no longer works ${probe.where} (${after.answer}).`);
      return;
    }
    // The sentence binds a server that supports the revocation of access tokens: is this one such?
    const other = await offlineCodeFlow(ctx, ROLE);
    const own = await revocationRequest(ctx, ROLE, other.tokens.access_token, 'access_token');
    const alive = own.status === 200 ? await probe.works(other.tokens) : undefined;
    if (alive === undefined || alive.works)
      return ctx.skip(
        `the access token of the revoked refresh token's grant still works ${probe.where}, but the target does not ` +
          `revoke access tokens at all (revoking one answered ${describeResponse(own)}` +
          `${alive ? ` and it still works: ${alive.answer}` : ''}): RFC 7009 §2.1's SHOULD binds a server that ` +
          'supports their revocation',
      );
    throw new CheckFailure(
      `After the refresh token was revoked (HTTP 200; a refresh with it got ${describeResponse(refresh)}), the ` +
        `access token issued with it in the same grant still works ${probe.where} (${after.answer}), though the ` +
        `target revokes access tokens (one revoked directly stops working: ${alive.answer}); ` +
        `${ctx.req.rfc7009_2_1.label} says the server should also invalidate every access token of the same grant.`,
      { requirement: ctx.req.rfc7009_2_1 },
    );
  },
});
