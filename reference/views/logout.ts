/** The logout pages (OIDC RP-Initiated Logout §2): the question whether to sign out, and the answer. */
import { html, page } from './html.ts';
import { type Lang, words } from './locale.ts';

/** Asks the user whether to sign out; the form repeats the (already checked) request. */
export function logoutConfirmPage(view: { action: string; fields: Record<string, string>; lang?: Lang }): string {
  const t = words(view.lang);
  const hidden = Object.entries(view.fields).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`,
  );
  return page(
    t.signOut,
    html`<h1>${t.signOutQuestion}</h1>
<p>${t.signOutText}</p>
<form method="post" action="${view.action}">
  ${hidden}
  <div class="actions">
    <button type="submit" name="decision" value="approve" autofocus>${t.yesSignOut}</button>
    <button type="submit" name="decision" value="deny" class="secondary">${t.noStay}</button>
  </div>
</form>`,
    view.lang,
  );
}

/** The answer; once signed out, an invisible iframe per front-channel logout URI (OIDC Front-Channel Logout §4). */
export function loggedOutPage(view: { signedOut: boolean; frames?: readonly string[]; lang?: Lang }): string {
  const t = words(view.lang);
  const frames = (view.frames ?? []).map(
    (src) => html`<iframe src="${src}" title="${t.signingOut}" hidden width="0" height="0"></iframe>`,
  );
  return page(
    view.signedOut ? t.signedOutTitle : t.stillTitle,
    view.signedOut
      ? html`<h1>${t.signedOutHeading}</h1><p>${t.mayClose}</p>${frames}`
      : html`<h1>${t.stillHeading}</h1>`,
    view.lang,
  );
}
