import { type RequirementRef, defineScenario } from '../../harness/scenario/scenario.ts';
import { codeFlowClient, codeFlowTokens, dpopExpected, dpopKey, expectRefusalFor, redeem } from '../checks/index.ts';

/** Seconds waited past a lifetime, for the clocks of the two sides and the request's own time. */
const MARGIN_S = 5;
/** RFC 6749 §4.1.2's RECOMMENDED maximum lifetime of a code (10 minutes). */
const RECOMMENDED_MAX_S = 600;
/** FAPI 2.0 SP §5.3.2.1's maximum lifetime of a code. */
const FAPI2_MAX_S = 60;

export default defineScenario({
  id: 'code.lifetime',
  title:
    'An authorization code is refused after its lifetime: the declared one, at most 60 s under FAPI 2.0, else the ' +
    'RECOMMENDED 10 minutes (only with --with-waits)',
  requirements: {
    // "The authorization code MUST expire shortly after it is issued to mitigate the risk of leaks." (the code
    // parameter the authorization server generates): "shortly" has no number, so a failure needs the lifetime the
    // target documents (config codeLifetimeSeconds), a fact the user gives.
    rfc6749_4_1_2: {
      spec: 'RFC 6749',
      section: '4.1.2',
      level: 'MUST',
      party: 'server',
      note: 'the authorization code expires shortly after it is issued',
    },
    // "A maximum authorization code lifetime of 10 minutes is RECOMMENDED."
    rfc6749_4_1_2_max: {
      spec: 'RFC 6749',
      section: '4.1.2',
      level: 'SHOULD',
      party: 'server',
      note: 'RECOMMENDED: a maximum authorization code lifetime of 10 minutes',
    },
    // Authorization servers "shall issue authorization codes with a maximum lifetime of 60 seconds".
    fapi2_5_3_2_1: {
      spec: 'FAPI 2.0 SP',
      section: '5.3.2.1',
      level: 'MUST',
      party: 'server',
      note: 'authorization codes are issued with a maximum lifetime of 60 seconds',
    },
    rfc6749_5_2: { spec: 'RFC 6749', section: '5.2', level: 'MUST', party: 'server', note: 'invalid_grant: expired' },
  },
  severity: 'medium',
  appliesTo: 'oauth2',
  // It holds a code of the user's for a minute or more: `user` keeps the other scenarios that act as the user (whose
  // sign-ins may supersede its grant) from running beside it.
  requires: {
    optionalRoles: ['keyed', 'confidential', 'public', 'confidential2'],
    user: true,
    capabilities: ['grant:authorization_code', 'endpoint:authorization', 'endpoint:token'],
  },
  catches: ['code-never-expires'],
  async run(ctx) {
    // How long to wait, from facts only: FAPI 2.0's cap, the lifetime the user declares, else the RECOMMENDED maximum.
    const fapi = ctx.applies(ctx.req.fapi2_5_3_2_1);
    const declared = ctx.codeLifetimeSeconds;
    const basis: { seconds: number; per: RequirementRef; what: string } = fapi
      ? { seconds: FAPI2_MAX_S, per: ctx.req.fapi2_5_3_2_1, what: 'FAPI 2.0 SP §5.3.2.1 caps it at 60 s' }
      : declared !== undefined
        ? {
            seconds: declared,
            per: ctx.req.rfc6749_4_1_2,
            what: `the config declares ${declared} s (codeLifetimeSeconds)`,
          }
        : {
            seconds: RECOMMENDED_MAX_S,
            per: ctx.req.rfc6749_4_1_2_max,
            what: 'no lifetime is declared (codeLifetimeSeconds): the RECOMMENDED maximum of 10 minutes',
          };
    const waitS = basis.seconds + MARGIN_S;
    if (!ctx.waits.allowed) ctx.skip(`waits ${waitS} s (${basis.what}); run with --with-waits`);
    const client = codeFlowClient(ctx) ?? ctx.skip('needs a code-flow client with a redirect URI');
    // Under FAPI 2.0 tokens are sender-constrained: every redemption carries a DPoP proof where the target offers it.
    const key = dpopExpected(ctx) ? dpopKey(ctx) : undefined;
    // The control first (a fresh code redeemed at once works; else it throws, an error), then the code to hold: the
    // held code's grant is then the user's latest for the client, which no later sign-in supersedes.
    await codeFlowTokens(ctx, client, key);
    const held = await ctx.flows.code(client.role);
    await ctx.waits.wait(
      waitS * 1000,
      `the code is held ${waitS} s before it is redeemed: ${basis.what}, plus ${MARGIN_S} s`,
    );
    const res = await redeem(ctx, client, held, key, `token request with a code issued ${waitS} s ago`);
    await expectRefusalFor(
      res,
      'invalid_grant',
      { when: `Redeeming an authorization code ${waitS} s after it was issued (${basis.what})`, per: basis.per },
      {
        cause: 'the code having expired',
        control: 'a fresh code redeemed at once',
        run: async () =>
          redeem(ctx, client, await ctx.flows.code(client.role), key, 'token request with a fresh code (control)'),
      },
    );
  },
});
