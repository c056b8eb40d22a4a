import { CheckFailure, defineScenario } from '../../harness/scenario/scenario.ts';
import {
  C_HASH_OIDC_CORE_3_3_2_11,
  ID_TOKEN_OIDC_CORE_2,
  USERINFO_SUB_OIDC_CORE_5_3_2,
  checkFrontChannelCHash,
  expectIdToken,
  expectTokenResponse,
  forEachResponseType,
  frontChannelResponse,
  inResponse,
  redeem,
  requireResponseTypes,
  userinfoClaims,
  userinfoRequest,
  validateFrontChannelIdToken,
} from '../checks/index.ts';
import { HYBRID_RESPONSE_TYPES } from '../../protocol/response-type.ts';

export default defineScenario({
  id: 'hybrid.code-redeemed',
  title:
    'The code of a hybrid response is redeemed at the token endpoint for an ID token with the same iss and sub as ' +
    "the response's; its c_hash matches the code, and a code token response's access token works at userinfo",
  requirements: {
    oidcCore_3_3_3_6: {
      spec: 'OIDC Core',
      section: '3.3.3.6',
      level: 'MUST',
      party: 'server',
      note: 'an ID token from both endpoints (code id_token, code id_token token): iss and sub identical in both',
    },
    oidcCore_3_3_3_3: {
      spec: 'OIDC Core',
      section: '3.3.3.3',
      level: 'MUST',
      party: 'server',
      note:
        "as the code flow's (§3.1.3.3): a successful response with an ID token and an access token (the flow's " +
        'definition, no BCP 14 keyword; judged as code.happy-path judges §3.1)',
    },
    // The client's side: it validates the token endpoint's ID token as in the code flow (§3.3.3.7 → §3.1.3.7).
    oidcCore_3_3_3_7: {
      spec: 'OIDC Core',
      section: '3.3.3.7',
      level: 'MUST',
      party: 'client',
      note: "the token endpoint's ID token validated as in §3.1.3.7",
    },
    oidcCore_2: ID_TOKEN_OIDC_CORE_2,
    oidcCore_3_3_2_11: C_HASH_OIDC_CORE_3_3_2_11,
    oidcCore_5_3: {
      spec: 'OIDC Core',
      section: '5.3',
      level: 'MUST',
      party: 'server',
      note: "userinfo returns the user's claims for an access token of an OpenID Connect authentication request",
    },
    oidcCore_5_3_2: USERINFO_SUB_OIDC_CORE_5_3_2,
  },
  severity: 'high',
  appliesTo: 'oidc',
  requires: {
    roles: ['legacy'],
    user: true,
    capabilities: ['grant:authorization_code', 'endpoint:authorization', 'endpoint:token'],
  },
  catches: ['hybrid-token-sub-differs', 'hybrid-c-hash-missing', 'id-token-wrong-aud', 'id-token-unknown-kid'],
  async run(ctx) {
    await forEachResponseType(ctx, requireResponseTypes(ctx, HYBRID_RESPONSE_TYPES), async (responseType) => {
      const response = await frontChannelResponse(ctx, responseType);
      const front = response.params.id_token
        ? await inResponse(responseType, () => validateFrontChannelIdToken(ctx, response))
        : undefined;
      if (front) await checkFrontChannelCHash(ctx, response, front, ctx.req.oidcCore_3_3_2_11);

      const when = `Redeeming the code of the response_type=${responseType} response`;
      const res = await redeem(
        ctx,
        response.client,
        {
          code: response.params.code!,
          request: response.outcome.request,
          ...(response.verifier === undefined ? {} : { pkce: { verifier: response.verifier } }),
        },
        undefined,
        `token request (the code of a ${responseType} response)`,
      );
      const rule = { when, per: ctx.req.oidcCore_3_3_3_3 };
      const backIdToken = expectIdToken(expectTokenResponse(res, rule), rule);
      const back = await inResponse(responseType, () =>
        ctx.jwt.validateIdToken(backIdToken, {
          client: response.client,
          ...(response.nonce === undefined ? {} : { nonce: response.nonce }),
        }),
      );
      if (front) {
        const claims = ctx.jwt.decode(front).payload;
        const same = await ctx.softly(
          () => {
            for (const claim of ['iss', 'sub'] as const) {
              if (back[claim] === claims[claim]) continue;
              throw new CheckFailure(
                `${when}, the token endpoint's ID token has ${claim} ${JSON.stringify(back[claim])}, while the ` +
                  `authorization response's has ${JSON.stringify(claims[claim])}; OIDC Core §3.3.3.6 requires the ` +
                  `${claim} of both ID tokens to be identical.`,
                { requirement: ctx.req.oidcCore_3_3_3_6, kind: 'refused-wrongly' },
              );
            }
          },
          { requirement: ctx.req.oidcCore_3_3_3_6 },
        );
        if (same) ctx.evidence.note(`response_type=${responseType}: both ID tokens carry the same iss and sub.`);
      }
      const accessToken = response.params.access_token;
      if (accessToken && !front && ctx.target.endpoints.userinfo) {
        const answer = await userinfoRequest(ctx, accessToken, `userinfo with the ${responseType} access token`);
        const claims = userinfoClaims(answer);
        const works = await ctx.softly(
          () => {
            if (!claims)
              throw new CheckFailure(
                `Userinfo answered the access token of the response_type=${responseType} response with HTTP ` +
                  `${answer.status}${answer.status === 200 ? ' without a JSON object of claims' : ''}; OIDC Core ` +
                  "§5.3 requires HTTP 200 with the user's claims.",
                { requirement: ctx.req.oidcCore_5_3, kind: 'refused-wrongly' },
              );
            if (claims.sub !== back.sub)
              throw new CheckFailure(
                `Userinfo returned sub ${JSON.stringify(claims.sub)} for the access token of the response_type=` +
                  `${responseType} response, while the ID token of its code has sub ${JSON.stringify(back.sub)}; ` +
                  "OIDC Core §5.3.2 requires sub, equal to the ID token's.",
                { requirement: ctx.req.oidcCore_5_3_2, kind: 'refused-wrongly' },
              );
          },
          { requirement: ctx.req.oidcCore_5_3 },
        );
        if (works)
          ctx.evidence.note(`response_type=${responseType}: the access token works at userinfo, for the same sub.`);
      }
    });
  },
});
