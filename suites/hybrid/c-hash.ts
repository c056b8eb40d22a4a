import { defineScenario } from '../../harness/scenario/scenario.ts';
import {
  C_HASH_OIDC_CORE_3_3_2_11,
  ID_TOKEN_OIDC_CORE_2,
  checkFrontChannelCHash,
  forEachResponseType,
  frontChannelResponse,
  inResponse,
  requireResponseTypes,
  validateFrontChannelIdToken,
} from '../checks/index.ts';

export default defineScenario({
  id: 'hybrid.c-hash',
  title: 'The ID token of a hybrid response (code id_token, code id_token token) carries the c_hash of its code',
  requirements: {
    oidcCore_3_3_2_11: C_HASH_OIDC_CORE_3_3_2_11,
    // The client's side: it validates the ID token (§3.3.2.12) and the code against c_hash (§3.3.2.10).
    oidcCore_3_3_2_12: {
      spec: 'OIDC Core',
      section: '3.3.2.12',
      level: 'MUST',
      party: 'client',
      note: 'the ID token validated as in §3.2.2.11, and c_hash (§3.3.2.10)',
    },
    oidcCore_2: ID_TOKEN_OIDC_CORE_2,
  },
  severity: 'high',
  appliesTo: 'oidc',
  requires: { roles: ['legacy'], user: true, capabilities: ['endpoint:authorization'] },
  catches: ['hybrid-c-hash-missing', 'id-token-wrong-aud', 'id-token-unknown-kid'],
  async run(ctx) {
    await forEachResponseType(
      ctx,
      requireResponseTypes(ctx, ['code id_token', 'code id_token token']),
      async (responseType) => {
        const response = await frontChannelResponse(ctx, responseType);
        const idToken = await inResponse(responseType, () => validateFrontChannelIdToken(ctx, response));
        await checkFrontChannelCHash(ctx, response, idToken, ctx.req.oidcCore_3_3_2_11);
      },
    );
  },
});
