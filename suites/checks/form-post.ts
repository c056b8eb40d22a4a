/**
 * OAuth 2.0 Form Post Response Mode §2: how an authorization response asked for with response_mode=form_post is
 * judged (form-post.response for code, form-post.implicit-hybrid for the implicit and hybrid response types).
 */
import {
  type AuthorizeResult,
  CheckFailure,
  PreconditionError,
  type Requirement,
  type RequirementRef,
  type Target,
  describeOutcome,
} from '../../harness/scenario/scenario.ts';

/** OAuth 2.0 Form Post Response Mode §2, the server's side: the form, its action and method; `note` says what of it. */
export const formPostRequirement = (note: string): Requirement => ({
  spec: 'OAuth 2.0 Form Post',
  section: '2',
  level: 'MUST',
  party: 'server',
  note,
});

/** Whether discovery lists form_post; a skip reason when it does not. */
export function formPostUnoffered(target: Target): string | undefined {
  const modes = target.discovery?.response_modes_supported;
  if (Array.isArray(modes) && modes.includes('form_post')) return undefined;
  return Array.isArray(modes)
    ? 'response_modes_supported does not list form_post, so the target does not offer it'
    : 'the discovery document has no response_modes_supported listing form_post';
}

/**
 * The fields of a form_post response: a form the page itself POSTed to the registered redirect URI, with nothing in
 * its URL. `when` names the request ("The authorization response to …"), `what` the request for a precondition
 * message ("the code flow request with response_mode=form_post"). A response that is no form POSTed there fails
 * under `per`; one that never reached the redirect URI, or whose form a script-less driver took, is a precondition.
 */
export function expectFormPost(
  outcome: AuthorizeResult,
  rule: { when: string; what: string; per: RequirementRef },
): Record<string, string> {
  const { when, what, per } = rule;
  if (outcome.kind === 'page' && outcome.unsentForm) {
    const form = outcome.unsentForm;
    throw new CheckFailure(
      `${when} was a page holding a form (${form.method}, fields ${form.fields.join(', ') || 'none'}) to ` +
        `${shownUrl(form.url)} that the page never submitted: the browser watched it for ${form.waitedMs} ms with ` +
        'its scripts running; OAuth 2.0 Form Post Response Mode §2 requires the parameters as "HTML form values ' +
        'that are auto-submitted in the User Agent", not a form left for the user to send.',
      { requirement: per, kind: 'refused-wrongly' },
    );
  }
  if (outcome.kind !== 'redirect')
    throw new PreconditionError(
      `${what} ${describeOutcome(outcome)}: it never reached the redirect URI, so there is no response to judge`,
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
    const sameUri = shownUrl(outcome.url) === shownUrl(registered);
    const action = sameUri ? `the registered redirect URI ${registered}` : shownUrl(outcome.url);
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
  return outcome.formFields ?? {};
}

/** The response parameters a URL carries in its query or fragment, as a clause ("" when none). */
export function inUrl(url: string): string {
  const u = new URL(url);
  const names = [...new URLSearchParams(u.search), ...new URLSearchParams(u.hash.slice(1))].map(([n]) => n);
  return names.length ? ` with ${names.join(', ')} in its URL` : '';
}

/** The URL without its query and fragment (they may carry the code; the redactor masks it anyway). */
export const shownUrl = (url: string): string => url.replace(/[?#].*$/, '');
