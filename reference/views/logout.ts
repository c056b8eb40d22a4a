/** The logout pages (OIDC RP-Initiated Logout §2): the question whether to sign out, and the answer. */
import { html, page } from './html.ts';

/** Asks the user whether to sign out; the form repeats the (already checked) request. */
export function logoutConfirmPage(view: { action: string; fields: Record<string, string> }): string {
  const hidden = Object.entries(view.fields).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`,
  );
  return page(
    'Sign out',
    html`<h1>Sign out?</h1>
<p>An application asks to sign you out of your account here.</p>
<form method="post" action="${view.action}">
  ${hidden}
  <div class="actions">
    <button type="submit" name="decision" value="approve" autofocus>Yes, sign out</button>
    <button type="submit" name="decision" value="deny" class="secondary">No, stay signed in</button>
  </div>
</form>`,
  );
}

/** The answer; once signed out, an invisible iframe per front-channel logout URI (OIDC Front-Channel Logout §4). */
export function loggedOutPage(view: { signedOut: boolean; frames?: readonly string[] }): string {
  const frames = (view.frames ?? []).map(
    (src) => html`<iframe src="${src}" title="Signing you out" hidden width="0" height="0"></iframe>`,
  );
  return page(
    view.signedOut ? 'Signed out' : 'Still signed in',
    view.signedOut
      ? html`<h1>You are signed out</h1><p>You may close this window.</p>${frames}`
      : html`<h1>You are still signed in</h1>`,
  );
}
