import { defineScenario } from '../../harness/scenario.ts';
import { expectRefusalFor, refresh, tokensAskingRefresh, tokensWithRefresh } from '../checks/index.ts';

export default defineScenario({
  id: 'refresh.bound-to-client',
  title: "A client cannot use another client's refresh token (invalid_grant)",
  requirements: {
    rfc6749_6: {
      spec: 'RFC 6749',
      section: '6',
      level: 'MUST',
      party: 'server',
      note: 'the refresh token was issued to the authenticated client',
    },
    rfc6749_5_2: {
      spec: 'RFC 6749',
      section: '5.2',
      level: 'MUST',
      party: 'server',
      note: 'invalid_grant: issued to another client',
    },
  },
  severity: 'critical',
  appliesTo: 'oauth2',
  requires: {
    roles: ['confidential', 'confidential2'],
    user: true,
    capabilities: ['grant:authorization_code', 'grant:refresh_token', 'endpoint:token'],
  },
  catches: ['refresh-not-client-bound'],
  async run(ctx) {
    const { tokens } = await tokensWithRefresh(ctx, 'confidential');
    const res = await refresh(
      ctx,
      'confidential2',
      tokens.refresh_token,
      {},
      "refresh_token as confidential2, with the confidential client's token",
    );
    // RFC 6749 §5.2 names the refusal: invalid_grant. Another error may be about confidential2 itself (its
    // authentication, the refresh grant not allowed to it): it counts only if confidential2 refreshes a token
    // of its own.
    await expectRefusalFor(
      res,
      'invalid_grant',
      {
        when: 'A refresh request by the confidential2 client with a refresh token issued to the confidential client',
        per: ctx.req.rfc6749_6,
      },
      {
        cause: 'the refresh token being issued to the confidential client',
        control: 'a refresh request by the confidential2 client with a refresh token of its own',
        run: async () => {
          const own = (await tokensAskingRefresh(ctx, 'confidential2')).tokens.refresh_token;
          // No premise, no verdict: without a refresh token of its own, confidential2 has no control to compare with.
          if (typeof own !== 'string' || !own)
            return ctx.skip('the confidential2 client got no refresh token of its own, so the refusal has no control');
          return refresh(ctx, 'confidential2', own, {}, 'refresh_token as confidential2, with its own token (control)');
        },
      },
    );
  },
});
