import { CheckFailure, defineScenario } from '../../harness/scenario/scenario.ts';
import {
  CODE_FLOW_CAPABILITIES,
  expectFormPost,
  formPostRequirement,
  formPostUnoffered,
  pkceParams,
} from '../checks/index.ts';

export default defineScenario({
  id: 'form-post.response',
  title:
    'response_mode=form_post is answered by a form POSTed to the registered redirect URI, with the parameters as ' +
    'form fields and nothing in the URL',
  requirements: {
    formPost_2: formPostRequirement(
      'a form auto-submitted by POST to the redirection URI, the parameters as its values',
    ),
  },
  severity: 'medium',
  appliesTo: 'oauth2',
  requires: { roles: ['confidential'], user: true, capabilities: CODE_FLOW_CAPABILITIES },
  catches: ['form-post-in-query', 'form-post-not-submitting'],
  async run(ctx) {
    const unoffered = formPostUnoffered(ctx.target);
    if (unoffered) ctx.skip(unoffered);
    const outcome = await ctx.authorize(
      'confidential',
      { response_mode: 'form_post', ...pkceParams(ctx) },
      { session: 'shared' },
    );
    const per = ctx.req.formPost_2;
    const when = 'The authorization response to a request with response_mode=form_post';
    const fields = expectFormPost(outcome, {
      when,
      what: 'the code flow request with response_mode=form_post',
      per,
    });
    if (!fields.code && !fields.error) {
      throw new CheckFailure(
        `${when} was a form POSTed to the redirect URI without a code or error field (fields: ` +
          `${Object.keys(fields).join(', ') || 'none'}); OAuth 2.0 Form Post Response Mode §2 requires the ` +
          'authorization response parameters as form values.',
        { requirement: per, kind: 'refused-wrongly' },
      );
    }
    ctx.evidence.note(
      `${when} was a form POSTed to the registered redirect URI with the fields ${Object.keys(fields).join(', ')} ` +
        'and nothing in the URL.',
    );
  },
});
