import { CheckFailure, PreconditionError, defineScenario, describeOutcome } from '../../harness/scenario/scenario.ts';
import { CODE_FLOW_CAPABILITIES, pkceParams } from '../checks/index.ts';

export default defineScenario({
  id: 'form-post.response',
  title:
    'response_mode=form_post is answered by a form POSTed to the registered redirect URI, with the parameters as ' +
    'form fields and nothing in the URL',
  requirements: {
    formPost_2: {
      spec: 'OAuth 2.0 Form Post',
      section: '2',
      level: 'MUST',
      party: 'server',
      note: 'a form auto-submitted by POST to the redirection URI, the parameters as its values',
    },
  },
  severity: 'medium',
  appliesTo: 'oauth2',
  requires: { roles: ['confidential'], user: true, capabilities: CODE_FLOW_CAPABILITIES },
  catches: ['form-post-in-query', 'form-post-not-submitting'],
  async run(ctx) {
    const modes = ctx.target.discovery?.response_modes_supported;
    if (!Array.isArray(modes) || !modes.includes('form_post'))
      ctx.skip(
        Array.isArray(modes)
          ? 'response_modes_supported does not list form_post, so the target does not offer it'
          : 'the discovery document has no response_modes_supported listing form_post',
      );
    const outcome = await ctx.authorize(
      'confidential',
      { response_mode: 'form_post', ...pkceParams(ctx) },
      { session: 'shared' },
    );
    const per = ctx.req.formPost_2;
    const when = 'The authorization response to a request with response_mode=form_post';
    if (outcome.kind === 'page' && outcome.unsentForm) {
      const form = outcome.unsentForm;
      throw new CheckFailure(
        `${when} was a page holding a form (${form.method}, fields ${form.fields.join(', ') || 'none'}) to ` +
          `${shown(form.url)} that the page never submitted: the browser watched it for ${form.waitedMs} ms with its ` +
          'scripts running; OAuth 2.0 Form Post Response Mode §2 requires the parameters as "HTML form values that ' +
          'are auto-submitted in the User Agent", not a form left for the user to send.',
        { requirement: per, kind: 'refused-wrongly' },
      );
    }
    if (outcome.kind !== 'redirect')
      throw new PreconditionError(
        `the code flow request with response_mode=form_post ${describeOutcome(outcome)}: it never reached the ` +
          'redirect URI, so there is no response to judge',
      );
    const registered = outcome.request.redirect_uri!;
    if (outcome.method !== 'POST') {
      throw new CheckFailure(
        `${when} reached the redirect URI by ${outcome.method ?? 'a redirect (GET)'}${inUrl(outcome.url)}; OAuth 2.0 ` +
          'Form Post Response Mode §2 requires an HTML form whose method is POST, with the parameters in its body.',
        { requirement: per, kind: 'refused-wrongly' },
      );
    }
    if (outcome.url !== registered) {
      const sameUri = shown(outcome.url) === shown(registered);
      const action = sameUri ? `the registered redirect URI ${registered}` : shown(outcome.url);
      throw new CheckFailure(
        `${when} was a form POSTed to ${action}${inUrl(outcome.url)}` +
          `${sameUri ? '' : `, not to the registered redirect URI ${registered}`}; OAuth 2.0 Form Post Response Mode ` +
          "§2 requires the form's action to be the client's redirection URI, with the parameters as form values in " +
          'the body.',
        { requirement: per },
      );
    }
    if (outcome.formTaken)
      throw new PreconditionError(
        `${when} was a page holding a form to the redirect URI, which the login driver took off the page without ` +
          'running its scripts: whether the page submits it by itself is unseen; use the auto or browser driver ' +
          '(login.driver "auto", the default, or "browser"), which shows the page in Chromium',
      );
    const fields = outcome.formFields ?? {};
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

/** The response parameters a URL carries in its query or fragment, as a clause ("" when none). */
function inUrl(url: string): string {
  const u = new URL(url);
  const names = [...new URLSearchParams(u.search), ...new URLSearchParams(u.hash.slice(1))].map(([n]) => n);
  return names.length ? ` with ${names.join(', ')} in its URL` : '';
}

/** The URL without its query and fragment (they may carry the code; the redactor masks it anyway). */
const shown = (url: string): string => url.replace(/[?#].*$/, '');
