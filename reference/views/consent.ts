/** The consent page: names the client and the scopes it asks for; approve or deny. */
import { html, page } from './html.ts';
import { type Lang, words } from './locale.ts';

export function consentPage(view: {
  action: string;
  clientName: string;
  clientId: string;
  scopes: string[];
  /** For a device request (RFC 8628 §5.4): the code the user must see on their own device. */
  userCode?: string;
  lang?: Lang;
  /** Hidden fields the form carries (a CSRF token). */
  hidden?: readonly [string, string][];
}): string {
  const t = words(view.lang);
  const items = view.scopes.map((scope) => html`<li>${t.scopes[scope] ?? t.scopeOther} (<code>${scope}</code>)</li>`);
  const device = view.userCode === undefined ? '' : html`<p>${t.deviceHint} <code>${view.userCode}</code>.</p>`;
  const hidden = (view.hidden ?? []).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`,
  );
  return page(
    t.authorizeAccess,
    html`<h1>${t.authorizeAccess}</h1>
<p><span class="client">${view.clientName}</span> (<code>${view.clientId}</code>) ${t.isAskingTo}</p>
<ul class="scopes">${items}</ul>
${device}
<form method="post" action="${view.action}">
  ${hidden}
  <div class="actions">
    <button type="submit" name="${t.decisionField}" value="${t.approveValue}" autofocus>${t.allow}</button>
    <button type="submit" name="${t.decisionField}" value="${t.denyValue}" class="secondary">${t.deny}</button>
  </div>
</form>`,
    view.lang,
  );
}
