import { CheckFailure, defineScenario } from '../../harness/scenario/scenario.ts';
import { codeFlowClient, codeFlowTokens, describeResponse, expectControl, userinfoWith } from '../checks/index.ts';
import { hasScopeToken } from '../../protocol/scope.ts';

export default defineScenario({
  id: 'userinfo.query-token',
  title:
    'An access token in the query string of a userinfo request: refused under FAPI 2.0; elsewhere what userinfo ' +
    'does is noted (RFC 6750 §2.3 lets a resource server support it)',
  requirements: {
    fapi2_5_3_4: {
      spec: 'FAPI 2.0 SP',
      section: '5.3.4',
      level: 'MUST',
      party: 'server',
      note: 'resource servers shall not accept access tokens in the query parameters of RFC 6750 §2.3',
    },
    // "Resource servers MAY support this method": outside FAPI 2.0 a userinfo endpoint that takes the token from the
    // query string does what the text allows, so that is noted, never failed.
    rfc6750_2_3: {
      spec: 'RFC 6750',
      section: '2.3',
      level: 'MAY',
      party: 'server',
      note: 'resource servers MAY support the URI query parameter; clients SHOULD NOT use it',
    },
    oidcCore_5_3_1: {
      spec: 'OIDC Core',
      section: '5.3.1',
      level: 'SHOULD',
      party: 'client',
      note: 'RECOMMENDED: the access token in the Authorization header (a Bearer token per RFC 6750 §2)',
    },
    rfc9700_4_3_2: {
      spec: 'RFC 9700',
      section: '4.3.2',
      level: 'MUST',
      party: 'client',
      note: 'clients MUST NOT pass access tokens in a URI query parameter',
    },
  },
  severity: 'low',
  appliesTo: 'oidc',
  requires: {
    optionalRoles: ['keyed', 'confidential', 'public', 'confidential2'],
    user: true,
    capabilities: ['grant:authorization_code', 'endpoint:authorization', 'endpoint:token', 'endpoint:userinfo'],
  },
  async run(ctx) {
    const client =
      codeFlowClient(ctx, (c) => hasScopeToken(c.scope, 'openid')) ??
      ctx.skip('needs a code-flow client with the openid scope');
    const endpoint = ctx.target.endpoints.userinfo ?? ctx.skip('the discovery document has no userinfo_endpoint');
    const { tokens, key } = await codeFlowTokens(ctx, client);
    const token = tokens.access_token;
    // A DPoP-bound token goes with its proof, so that only where the token is sent differs from a sound request.
    const dpop = String(tokens.token_type).toLowerCase() === 'dpop' ? key : undefined;
    const url = new URL(endpoint);
    url.searchParams.set('access_token', token);
    const res = await ctx.http.get(url.href, {
      headers: dpop ? { dpop: dpop.proof('GET', endpoint, { accessToken: token }) } : {},
      label: 'userinfo with the access token as ?access_token= and no Authorization header',
    });
    const sound = `userinfo with the same token in the Authorization header (${dpop ? 'DPoP' : 'Bearer'})`;
    const control = async () => {
      const ok = await userinfoWith(ctx, token, dpop ? 'DPoP' : 'Bearer', dpop);
      if (ok.status !== 200) throw new CheckFailure(`${sound} got ${describeResponse(ok)}`);
    };
    if (res.status < 200 || res.status >= 300) {
      ctx.evidence.note(`Userinfo refused the access token in the query string: ${describeResponse(res)}.`);
      return expectControl('userinfo refused the token in the query string', sound, control);
    }
    if (ctx.applies(ctx.req.fapi2_5_3_4)) {
      throw new CheckFailure(
        `Userinfo answered ${describeResponse(res)} to the access token in the query string (access_token), with ` +
          `no Authorization header; ${ctx.req.fapi2_5_3_4.label} forbids accepting it there.`,
        { requirement: ctx.req.fapi2_5_3_4 },
      );
    }
    ctx.evidence.note(
      `Userinfo accepted the access token in the query string (${describeResponse(res)}). RFC 6750 §2.3 lets a ` +
        'resource server support this (MAY), so it is not judged here; URLs are logged, RFC 9700 §4.3.2 forbids ' +
        'clients to send tokens there, and FAPI 2.0 SP §5.3.4 forbids accepting them (--profile fapi2).',
    );
  },
});
