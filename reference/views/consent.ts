/** The consent page: names the client and the scopes it asks for; approve or deny. */
import { html, page } from './html.ts';

const SCOPE_TEXT: Record<string, string> = {
  openid: 'Sign you in with your account',
  profile: 'Your name and profile picture',
  email: 'Your email address',
  address: 'Your postal address',
  phone: 'Your phone number',
  offline_access: 'Stay connected while you are away',
  'api:read': 'Read data through the API',
  'api:write': 'Change data through the API',
};

export function consentPage(view: {
  action: string;
  clientName: string;
  clientId: string;
  scopes: string[];
  /** For a device request (RFC 8628 §5.4): the code the user must see on their own device. */
  userCode?: string;
}): string {
  const items = view.scopes.map((scope) => html`<li>${SCOPE_TEXT[scope] ?? 'Access'} (<code>${scope}</code>)</li>`);
  const device =
    view.userCode === undefined
      ? ''
      : html`<p>Allow only if your own device shows the code <code>${view.userCode}</code>.</p>`;
  return page(
    'Authorize access',
    html`<h1>Authorize access</h1>
<p><span class="client">${view.clientName}</span> (<code>${view.clientId}</code>) is asking to:</p>
<ul class="scopes">${items}</ul>
${device}
<form method="post" action="${view.action}">
  <div class="actions">
    <button type="submit" name="decision" value="approve" autofocus>Allow</button>
    <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
  </div>
</form>`,
  );
}
