import { defineScenario } from '../../harness/scenario/scenario.ts';
import {
  ID_TOKEN_OIDC_CORE_2,
  forEachResponseType,
  frontChannelResponse,
  inResponse,
  requireResponseTypes,
  validateFrontChannelIdToken,
} from '../checks/index.ts';

export default defineScenario({
  id: 'hybrid.at-hash',
  title:
    'An ID token issued with an access token at the authorization endpoint (id_token token, code id_token token) ' +
    'carries the at_hash of that access token',
  requirements: {
    oidcCore_3_2_2_10: {
      spec: 'OIDC Core',
      section: '3.2.2.10',
      level: 'MUST',
      party: 'server',
      note: 'at_hash is REQUIRED for response_type id_token token',
    },
    oidcCore_3_3_2_11: {
      spec: 'OIDC Core',
      section: '3.3.2.11',
      level: 'MUST',
      party: 'server',
      note: 'at_hash is REQUIRED for response_type code id_token token',
    },
    // The client's side: it validates the ID token (§3.2.2.11) and the access token against at_hash (§3.2.2.9).
    oidcCore_3_2_2_11: {
      spec: 'OIDC Core',
      section: '3.2.2.11',
      level: 'MUST',
      party: 'client',
      note: 'the ID token validated, and the access token against at_hash (§3.2.2.9)',
    },
    oidcCore_2: ID_TOKEN_OIDC_CORE_2,
  },
  severity: 'high',
  appliesTo: 'oidc',
  requires: { roles: ['legacy'], user: true, capabilities: ['endpoint:authorization'] },
  catches: ['hybrid-at-hash-wrong', 'at-hash-wrong', 'id-token-wrong-aud', 'id-token-unknown-kid'],
  async run(ctx) {
    await forEachResponseType(
      ctx,
      requireResponseTypes(ctx, ['id_token token', 'code id_token token']),
      async (responseType) => {
        const response = await frontChannelResponse(ctx, responseType);
        const idToken = await inResponse(responseType, () => validateFrontChannelIdToken(ctx, response));
        const per = responseType === 'id_token token' ? ctx.req.oidcCore_3_2_2_10 : ctx.req.oidcCore_3_3_2_11;
        const matched = await ctx.softly(
          () =>
            inResponse(responseType, () =>
              ctx.jwt.checkAtHash(idToken, response.params.access_token!, { required: true }),
            ),
          { requirement: per },
        );
        if (matched)
          ctx.evidence.note(`response_type=${responseType}: the ID token's at_hash matches the access token.`);
      },
    );
  },
});
