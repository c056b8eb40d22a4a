/** The device activation pages (RFC 8628 §3.3): enter the user code; the outcome once decided. */
import { html, page } from './html.ts';
import { type Lang, words } from './locale.ts';

// The user code input's fixed attributes, as markup constants that keep the template's lines short.
const USER_CODE_INPUT = html`type="text" id="user_code" name="user_code" autocomplete="off"`;
const USER_CODE_HINTS = html`autocapitalize="characters" spellcheck="false" autofocus required`;

export function activatePage(view: { action: string; userCode?: string; error?: string; lang?: Lang }): string {
  const t = words(view.lang);
  return page(
    t.connectDevice,
    html`<h1>${t.connectDevice}</h1>
<p>${t.enterCode}</p>
${view.error ? html`<div class="error" role="alert">${view.error}</div>` : ''}
<form method="post" action="${view.action}">
  <label for="user_code">${t.code}</label>
  <input ${USER_CODE_INPUT} ${USER_CODE_HINTS} placeholder="BCDF-GHJK" value="${view.userCode ?? ''}">
  <div class="actions"><button type="submit">${t.continue}</button></div>
</form>`,
    view.lang,
  );
}

export function activationDonePage(view: { approved: boolean; clientName: string; lang?: Lang }): string {
  const t = words(view.lang);
  const client = html`<span class="client">${view.clientName}</span>`;
  const [title, text] = view.approved
    ? [t.deviceConnected, html`${client} ${t.isConnected}`]
    : [t.requestDenied, html`${client} ${t.notConnected}`];
  return page(
    title,
    html`<h1>${title}</h1>
<p>${text}</p>`,
    view.lang,
  );
}
