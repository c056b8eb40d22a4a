/** The login page: a form POSTing username and password for one pending authorization request. */
import { html, page } from './html.ts';

const USERNAME_INPUT = html`type="text" id="username" name="username" autocomplete="username"`;

export function loginPage(view: { action: string; clientName: string; username?: string; error?: string }): string {
  // Focus the first field still to fill in: the password when the username came back with an error.
  const focusPassword = view.username !== undefined && view.username !== '';
  const autofocusUsername = focusPassword ? '' : html`autofocus `;
  const autofocusPassword = focusPassword ? html`autofocus ` : '';
  return page(
    'Sign in',
    html`<h1>Sign in</h1>
<p>to continue to <span class="client">${view.clientName}</span></p>
${view.error ? html`<div class="error" role="alert">${view.error}</div>` : ''}
<form method="post" action="${view.action}">
  <label for="username">Username</label>
  <input ${USERNAME_INPUT} ${autofocusUsername}required value="${view.username ?? ''}">
  <label for="password">Password</label>
  <input type="password" id="password" name="password" autocomplete="current-password" ${autofocusPassword}required>
  <div class="actions"><button type="submit">Sign in</button></div>
</form>`,
  );
}
