import { defineScenario } from '../../harness/scenario/scenario.ts';
import { clientPair, expectRefusalFor, refresh, tokensAskingRefresh, tokensWithRefresh } from '../checks/index.ts';

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
    rfc6749_10_4: {
      spec: 'RFC 6749',
      section: '10.4',
      level: 'MUST',
      party: 'server',
      note: 'the binding between a refresh token and the client it was issued to (a public client too)',
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
  // Any two different code-flow clients (clientPair): confidential and confidential2, else one of them and public.
  requires: {
    optionalRoles: ['confidential', 'confidential2', 'public'],
    user: true,
    capabilities: ['grant:authorization_code', 'grant:refresh_token', 'endpoint:token'],
  },
  catches: ['refresh-not-client-bound'],
  async run(ctx) {
    const pair = clientPair(ctx);
    const { tokens } = await tokensWithRefresh(ctx, pair.owner);
    const res = await refresh(
      ctx,
      pair.other,
      tokens.refresh_token,
      {},
      `refresh_token as ${pair.other}, with the ${pair.owner} client's token`,
    );
    // RFC 6749 §5.2 names the refusal: invalid_grant. Another error may be about the other client itself (its
    // authentication, the refresh grant not allowed to it): it counts only if that client refreshes a token of its
    // own. A public client is known by its client_id: §6 speaks of the authenticated client, §10.4 of every client.
    await expectRefusalFor(
      res,
      'invalid_grant',
      {
        when:
          `A refresh request by the ${pair.other} client with a refresh token issued to the ${pair.owner} ` + 'client',
        per: pair.otherIsPublic ? ctx.req.rfc6749_10_4 : ctx.req.rfc6749_6,
      },
      {
        cause: `the refresh token being issued to the ${pair.owner} client`,
        control: `a refresh request by the ${pair.other} client with a refresh token of its own`,
        run: async () => {
          const own = (await tokensAskingRefresh(ctx, pair.other)).tokens.refresh_token;
          // No premise, no verdict: without a refresh token of its own, the other client has no control.
          if (typeof own !== 'string' || !own)
            return ctx.skip(`the ${pair.other} client got no refresh token of its own, so the refusal has no control`);
          return refresh(ctx, pair.other, own, {}, `refresh_token as ${pair.other}, with its own token (control)`);
        },
      },
    );
  },
});
