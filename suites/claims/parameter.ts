import { CheckFailure, defineScenario } from '../../harness/scenario/scenario.ts';
import {
  CODE_FLOW_CAPABILITIES,
  authorizeInSession,
  idTokenOf,
  redeemOutcome,
  signIn,
  userinfoRequest,
} from '../checks/index.ts';

/** Claims a user commonly has, in the order the scenario prefers them (OIDC Core §5.1). */
const CANDIDATES = ['email', 'name', 'family_name', 'given_name', 'phone_number', 'preferred_username'];

export default defineScenario({
  id: 'claims.parameter',
  title:
    'Where the claims parameter is supported, an essential claim it asks for comes back in the ID token and ' +
    'from userinfo',
  requirements: {
    oidcCore_5_5: {
      spec: 'OIDC Core',
      section: '5.5',
      level: 'SHOULD',
      party: 'server',
      note: 'the claims requested are returned; not returning one is not an error',
    },
  },
  severity: 'low',
  appliesTo: 'oidc',
  requires: { roles: ['confidential'], user: true, capabilities: [...CODE_FLOW_CAPABILITIES, 'endpoint:userinfo'] },
  catches: ['claims-parameter-ignored'],
  async run(ctx) {
    if (ctx.target.discovery?.claims_parameter_supported !== true) {
      return ctx.skip('discovery does not say claims_parameter_supported: true (OIDC Discovery §3 default false)');
    }
    // Which claims does the user have? Userinfo with the client's full scope tells.
    const full = await signIn(ctx, 'confidential');
    const known = (await userinfoRequest(ctx, full.tokens.access_token, "userinfo with the client's full scope")).body;
    const supported = ctx.target.discovery.claims_supported;
    const claim = CANDIDATES.find(
      (c) => known[c] !== undefined && (!Array.isArray(supported) || supported.includes(c)),
    );
    // No premise, no verdict: a user without any of these claims leaves none to ask for.
    if (!claim)
      return ctx.skip(
        `userinfo with the client's scope returned none of ${CANDIDATES.join(', ')}, so there is no claim of this ` +
          `user to ask for`,
      );

    // Scope openid alone: the claim can only come back because the claims parameter asked for it.
    const claims = JSON.stringify({
      id_token: { [claim]: { essential: true } },
      userinfo: { [claim]: { essential: true } },
    });
    const { outcome, verifier } = await authorizeInSession(ctx, 'confidential', ctx.loginSession(), {
      scope: 'openid',
      claims,
    });
    const tokens = await redeemOutcome(ctx, 'confidential', outcome, verifier, 'the request with the claims parameter');
    const { claims: idClaims } = idTokenOf(ctx, tokens, 'redeeming the code of the claims request');
    await ctx.softly(() => {
      if (idClaims[claim] !== undefined) return;
      throw new CheckFailure(
        `With scope openid and claims ${claims}, the ID token lacks ${claim} (which userinfo shows this user has); ` +
          `OIDC Core §5.5 asks for the requested claims to be returned in the ID token.`,
        { requirement: ctx.req.oidcCore_5_5, kind: 'refused-wrongly' },
      );
    });
    const info = await userinfoRequest(ctx, tokens.access_token, 'userinfo for the claims request');
    if (info.body[claim] === undefined) {
      throw new CheckFailure(
        `With scope openid and claims ${claims}, userinfo (HTTP ${info.status}) lacks ${claim}; OIDC Core §5.5 asks ` +
          `for the requested claims to be returned from userinfo.`,
        { requirement: ctx.req.oidcCore_5_5, kind: 'refused-wrongly' },
      );
    }
  },
});
