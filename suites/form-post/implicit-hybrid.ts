import { CheckFailure, defineScenario } from '../../harness/scenario/scenario.ts';
import {
  ID_TOKEN_OIDC_CORE_2,
  NOT_FOR_THIS_CLIENT_ERRORS,
  ResponseTypeRefused,
  expectFormPost,
  expectedParts,
  forEachResponseType,
  formPostRequirement,
  formPostUnoffered,
  frontChannelParams,
  inResponse,
  requireResponseTypes,
} from '../checks/index.ts';

/** The response types of OIDC Core §3.2 and §3.3 that return an ID token or a token with it from /authorize. */
const TYPES = ['id_token', 'id_token token', 'code id_token', 'code token', 'code id_token token'];

export default defineScenario({
  id: 'form-post.implicit-hybrid',
  title:
    'response_mode=form_post with the implicit and hybrid response types is answered by a form POSTed to the ' +
    'redirect URI, the ID token, access token and code as its fields, nothing in the URL',
  requirements: {
    formPost_2: formPostRequirement(
      'id_token, access_token, code as form values auto-submitted by POST (Appendix A: response_type=id_token)',
    ),
    oidcCore_2: ID_TOKEN_OIDC_CORE_2,
  },
  severity: 'medium',
  appliesTo: 'oidc',
  requires: { roles: ['legacy'], user: true, capabilities: ['endpoint:authorization'] },
  catches: [
    'form-post-ignored-for-implicit',
    'form-post-in-query',
    'form-post-not-submitting',
    'id-token-wrong-aud',
    'id-token-unknown-kid',
  ],
  async run(ctx) {
    const unoffered = formPostUnoffered(ctx.target);
    if (unoffered) ctx.skip(unoffered);
    await forEachResponseType(ctx, requireResponseTypes(ctx, TYPES), async (responseType) => {
      const nonce = ctx.random();
      const params = { ...frontChannelParams(ctx, responseType, nonce), response_mode: 'form_post' };
      const outcome = await ctx.authorize('legacy', params, { session: 'shared' });
      const error = outcome.kind === 'redirect' ? outcome.params.error : undefined;
      if (error !== undefined && NOT_FOR_THIS_CLIENT_ERRORS.has(error))
        throw new ResponseTypeRefused(responseType, error);
      const per = ctx.req.formPost_2;
      const when = `The authorization response to response_type=${responseType} with response_mode=form_post`;
      const fields = await inResponse(responseType, () =>
        expectFormPost(outcome, {
          when,
          what: `the request as legacy with response_type=${responseType} and response_mode=form_post`,
          per,
        }),
      );
      const missing = expectedParts(responseType).filter((p) => !fields[p]);
      if (missing.length > 0)
        throw new CheckFailure(
          `${when} was a form POSTed to the redirect URI without ${missing.join(', ')} (fields: ` +
            `${Object.keys(fields).join(', ') || 'none'}); OAuth 2.0 Form Post Response Mode §2 requires the ` +
            'authorization response parameters as form values.',
          { requirement: per, kind: 'refused-wrongly' },
        );
      if (fields.id_token)
        await inResponse(responseType, () =>
          ctx.jwt.validateIdToken(fields.id_token!, { client: ctx.client('legacy'), nonce }),
        );
      ctx.evidence.note(
        `response_type=${responseType}: a form POSTed to the registered redirect URI with the fields ` +
          `${Object.keys(fields).join(', ')}, nothing in the URL${fields.id_token ? ', its ID token valid' : ''}.`,
      );
    });
  },
});
