import {
  CheckFailure,
  PreconditionError,
  defineScenario,
  type HttpResponse,
  type RequirementRef,
} from '../../harness/scenario/scenario.ts';
import { CODE_FLOW_CAPABILITIES, signIn, userinfoClaims } from '../checks/index.ts';

export default defineScenario({
  id: 'userinfo.post',
  title: 'Userinfo answers POST, with the access token in the Authorization header and in the form body',
  requirements: {
    oidcCore_5_3_1: {
      spec: 'OIDC Core',
      section: '5.3.1',
      level: 'MUST',
      party: 'server',
      note: 'the UserInfo Endpoint MUST support GET and POST',
    },
    rfc6750_2_1: {
      spec: 'RFC 6750',
      section: '2.1',
      level: 'MUST',
      party: 'server',
      note: 'resource servers MUST support the Authorization header',
    },
    rfc6750_2_2: {
      spec: 'RFC 6750',
      section: '2.2',
      level: 'MAY',
      party: 'server',
      note: 'the form-encoded body parameter; its absence is a warning',
    },
  },
  severity: 'medium',
  appliesTo: 'oidc',
  requires: { roles: ['confidential'], user: true, capabilities: [...CODE_FLOW_CAPABILITIES, 'endpoint:userinfo'] },
  catches: ['userinfo-get-only'],
  async run(ctx) {
    const url = ctx.target.endpoints.userinfo;
    if (!url) throw new PreconditionError('the discovery document has no userinfo_endpoint');
    const { tokens, claims: idClaims } = await signIn(ctx, 'confidential');
    const judge = (res: HttpResponse, how: string, per: RequirementRef) => {
      const claims = userinfoClaims(res);
      if (!claims) {
        throw new CheckFailure(
          `A POST to userinfo with the access token ${how} got ` +
            `HTTP ${res.status}${res.status === 200 ? ' without a JSON object of claims' : ''}; ${per} requires the ` +
            `user's claims.`,
          { requirement: per, kind: 'refused-wrongly' },
        );
      }
      if (claims.sub !== idClaims.sub) {
        throw new CheckFailure(
          `A POST to userinfo with the access token ${how} returned sub ${JSON.stringify(claims.sub)}, not the ID ` +
            `token's ${JSON.stringify(idClaims.sub)}; OIDC Core §5.3.2 requires the same sub.`,
          { requirement: ctx.req.oidcCore_5_3_1, kind: 'refused-wrongly' },
        );
      }
    };
    await ctx.softly(async () => {
      const res = await ctx.http.send({
        method: 'POST',
        url,
        headers: { authorization: `Bearer ${tokens.access_token}` },
        label: 'userinfo POST with the token in the Authorization header',
      });
      judge(res, 'in the Authorization header', ctx.req.oidcCore_5_3_1);
    });
    await ctx.softly(async () => {
      const res = await ctx.http.send({
        method: 'POST',
        url,
        form: { access_token: tokens.access_token },
        label: 'userinfo POST with the token in the form body',
      });
      // RFC 6750 §2.2 lets a resource server leave the body method out: a refusal is a warning.
      judge(res, 'in the form body (access_token)', ctx.req.rfc6750_2_2);
    });
  },
});
