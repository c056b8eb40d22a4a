import { CheckFailure, GRANT, PreconditionError, defineScenario } from '../../harness/scenario/scenario.ts';
import { describeResponse, tokenProbe } from '../checks/index.ts';

export default defineScenario({
  id: 'code.reuse-revokes-tokens',
  title: 'Replaying a redeemed code revokes the tokens its first redemption issued',
  requirements: {
    rfc6749_4_1_2: {
      spec: 'RFC 6749',
      section: '4.1.2',
      level: 'SHOULD',
      party: 'server',
      note: 'revoke the tokens issued from a code used twice',
    },
    rfc9700_4_2_4: { spec: 'RFC 9700', section: '4.2.4', level: 'SHOULD', party: 'server' },
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: { roles: ['confidential'], user: true, capabilities: ['grant:authorization_code', 'endpoint:token'] },
  catches: ['code-reuse-keeps-tokens', 'code-reuse-allowed', 'introspection-always-active'],
  async run(ctx) {
    const client = ctx.client('confidential');
    const probe = tokenProbe(ctx, 'confidential');
    // Its own sign-in: replaying a code may revoke the whole grant it came from (RFC 6749 §4.1.2;
    // oidc-provider does), and on the run's shared session that grant would be every other scenario's too.
    const { code, request, pkce, tokens } = await ctx.flows.tokens('confidential', { ...probe.flow, session: 'fresh' });
    const before = await probe.works(tokens);
    if (!before.works)
      throw new PreconditionError(
        `the tokens from the code did not work ${probe.where} even before the replay (${before.answer})`,
      );

    const replay = await ctx.http.token(
      client,
      {
        grant_type: GRANT.code,
        code,
        redirect_uri: request.redirect_uri,
        code_verifier: pkce?.verifier,
      },
      { label: 'replay of the redeemed code' },
    );
    const after = await probe.works(tokens);
    if (after.works) {
      throw new CheckFailure(
        `After the code was redeemed a second time (${describeResponse(replay)}), the tokens from its first ` +
          `redemption still work ${probe.where} (${after.answer}); RFC 6749 §4.1.2 says the server SHOULD revoke ` +
          `the tokens issued from a code used twice.`,
      );
    }
    ctx.evidence.note(
      `The replay got ${describeResponse(replay)}; then the first redemption's tokens no longer ` +
        `worked ${probe.where} (${after.answer}).`,
    );
  },
});
