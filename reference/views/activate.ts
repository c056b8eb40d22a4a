/** The device activation pages (RFC 8628 §3.3): enter the user code; the outcome once decided. */
import { html, page } from './html.ts';

// The user code input's fixed attributes, as markup constants that keep the template's lines short.
const USER_CODE_INPUT = html`type="text" id="user_code" name="user_code" autocomplete="off"`;
const USER_CODE_HINTS = html`autocapitalize="characters" spellcheck="false" autofocus required`;

export function activatePage(view: { action: string; userCode?: string; error?: string }): string {
  return page(
    'Connect a device',
    html`<h1>Connect a device</h1>
<p>Enter the code shown on your device.</p>
${view.error ? html`<div class="error" role="alert">${view.error}</div>` : ''}
<form method="post" action="${view.action}">
  <label for="user_code">Code</label>
  <input ${USER_CODE_INPUT} ${USER_CODE_HINTS} placeholder="BCDF-GHJK" value="${view.userCode ?? ''}">
  <div class="actions"><button type="submit">Continue</button></div>
</form>`,
  );
}

export function activationDonePage(view: { approved: boolean; clientName: string }): string {
  const [title, text] = view.approved
    ? [
        'Device connected',
        html`<span class="client">${view.clientName}</span> is now connected. You can return to your device.`,
      ]
    : [
        'Request denied',
        html`<span class="client">${view.clientName}</span> was not connected. You can close this page.`,
      ];
  return page(
    title,
    html`<h1>${title}</h1>
<p>${text}</p>`,
  );
}
