import { clientAssertion, defineScenario } from '../../harness/scenario/scenario.ts';
import {
  describeResponse,
  expectOAuthError,
  provesSoundAssertionWorks,
  redeemWithAssertion,
  tokenIssued,
} from '../checks/index.ts';

/** Far enough ahead that no clock skew covers it (FAPI 2.0 SP §5.3.2.1 asks servers to reject 60 s or more). */
const NOT_BEFORE_IN = 120;
/** A day: unreasonably far in the past for an assertion that lives seconds. */
const ISSUED_AGO = 86_400;

export default defineScenario({
  id: 'client-auth.assertion-times',
  title: 'A client assertion without sub or with nbf in the future is refused (one issued a day ago is noted)',
  requirements: {
    rfc7523_3_sub: {
      spec: 'RFC 7523',
      section: '3',
      level: 'MUST',
      party: 'server',
      note: 'point 2: the JWT MUST contain sub, for client authentication the client_id',
    },
    rfc7523_3_nbf: {
      spec: 'RFC 7523',
      section: '3',
      level: 'MUST',
      party: 'server',
      note: 'point 5: the JWT MUST NOT be accepted before its nbf',
    },
    fapi2_5_3_2_1: {
      spec: 'FAPI 2.0 SP',
      section: '5.3.2.1',
      level: 'MUST',
      party: 'server',
      note: 'item 13: reject a JWT (a client assertion) whose nbf is more than 60 seconds in the future',
    },
    rfc7523_3_iat: {
      spec: 'RFC 7523',
      section: '3',
      level: 'MAY',
      party: 'server',
      note: 'point 6: the server may reject an iat unreasonably far in the past (not judged)',
    },
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: {
    roles: ['keyed'],
    user: true,
    capabilities: ['auth:private_key_jwt', 'grant:authorization_code', 'endpoint:token'],
  },
  catches: ['client-assertion-times-unchecked'],
  async run(ctx) {
    const client = ctx.client('keyed');
    const audience = ctx.target.issuer;
    const refused = [
      {
        what: 'without sub',
        assertion: () => clientAssertion(client, { audience, withoutSub: true }),
        per: ctx.req.rfc7523_3_sub,
      },
      {
        what: `with nbf ${NOT_BEFORE_IN} s in the future`,
        assertion: () => clientAssertion(client, { audience, notBeforeIn: NOT_BEFORE_IN, expiresIn: 300 }),
        per: ctx.applies(ctx.req.fapi2_5_3_2_1) ? ctx.req.fapi2_5_3_2_1 : ctx.req.rfc7523_3_nbf,
      },
    ];
    // One code per assertion: an assertion wrongly accepted spends its code, and must not spoil the next case.
    let code = await ctx.flows.code('keyed');
    for (const c of refused) {
      const res = await redeemWithAssertion(
        ctx,
        client,
        code,
        c.assertion(),
        `token request, client assertion ${c.what}`,
      );
      await ctx.softly(() =>
        expectOAuthError(res, 'invalid_client', {
          when: `A token request with a client assertion ${c.what}`,
          per: c.per,
        }),
      );
      if (tokenIssued(res)) code = await ctx.flows.code('keyed');
    }
    await provesSoundAssertionWorks(ctx, client, code);

    const old = await redeemWithAssertion(
      ctx,
      client,
      await ctx.flows.code('keyed'),
      clientAssertion(client, { audience, issuedAgo: ISSUED_AGO }),
      'token request, client assertion issued a day ago (exp still valid)',
    );
    ctx.evidence.note(
      `A client assertion with iat a day in the past and exp 60 s ahead got ${describeResponse(old)}; ` +
        `${ctx.req.rfc7523_3_iat.label} lets the server reject it or not: noted, not judged.`,
    );
  },
});
