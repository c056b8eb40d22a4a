/**
 * The login page: a form POSTing username and password for one pending authorization request. Variants: the user
 * name alone first and the password on the next page (two-step-login), a CSRF token field (csrf-forms), the form
 * built by a script from a data block, with no form in the served HTML (spa-login), German words (locale-de).
 */
import { html, jsonData, page, type SafeHtml } from './html.ts';
import { type Lang, words } from './locale.ts';

export interface LoginView {
  action: string;
  clientName: string;
  username?: string;
  error?: string;
  lang?: Lang;
  /** 'both' (the default): user name and password; 'identifier': the user name alone; 'password': the password. */
  step?: 'both' | 'identifier' | 'password';
  /** Hidden fields the form carries (a CSRF token). */
  hidden?: readonly [string, string][];
  /** The form is rendered by LOGIN_SCRIPT from a data block (spa-login). */
  scripted?: boolean;
}

interface Field {
  label: string;
  name: string;
  type: 'text' | 'password';
  value: string;
  autocomplete: string;
  autofocus: boolean;
}

/** The one script of a script-rendered login page: builds the form from the `login-form` data block. */
export const LOGIN_SCRIPT =
  "(function(){var d=JSON.parse(document.getElementById('login-form').textContent);" +
  "var f=document.createElement('form');f.method='post';f.action=d.action;" +
  "d.hidden.forEach(function(h){var i=document.createElement('input');i.type='hidden';i.name=h[0];i.value=h[1];" +
  'f.appendChild(i);});' +
  "d.fields.forEach(function(x){var l=document.createElement('label');l.htmlFor=x.name;l.textContent=x.label;" +
  "f.appendChild(l);var i=document.createElement('input');i.type=x.type;i.id=x.name;i.name=x.name;i.value=x.value;" +
  'i.autocomplete=x.autocomplete;i.required=true;i.autofocus=x.autofocus;f.appendChild(i);});' +
  "var a=document.createElement('div');a.className='actions';var b=document.createElement('button');" +
  "b.type='submit';b.textContent=d.submit;a.appendChild(b);f.appendChild(a);" +
  "document.getElementById('login').appendChild(f);})();";

export function loginPage(view: LoginView): string {
  const t = words(view.lang);
  const step = view.step ?? 'both';
  const known = view.username !== undefined && view.username !== '';
  const fields: Field[] = [];
  const hidden: [string, string][] = [...(view.hidden ?? [])];
  if (step === 'password') hidden.push(['username', view.username ?? '']);
  else {
    fields.push({
      label: t.username,
      name: 'username',
      type: 'text',
      value: view.username ?? '',
      autocomplete: 'username',
      // Focus the first field still to fill in: the password when the username came back with an error.
      autofocus: !known || step === 'identifier',
    });
  }
  if (step !== 'identifier') {
    fields.push({
      label: t.password,
      name: 'password',
      type: 'password',
      value: '',
      autocomplete: 'current-password',
      autofocus: known || step === 'password',
    });
  }
  const submit = step === 'identifier' ? t.next : t.signIn;
  const who = step === 'password' ? html`<p>${t.signedInAs} <strong>${view.username ?? ''}</strong></p>` : '';
  const head = html`<h1>${t.signIn}</h1>
<p>${t.toContinueTo} <span class="client">${view.clientName}</span></p>
${who}${view.error ? html`<div class="error" role="alert">${view.error}</div>` : ''}`;
  if (view.scripted) {
    const data = { action: view.action, hidden, fields, submit };
    return page(
      t.signIn,
      html`${head}
<div id="login"></div>
<script type="application/json" id="login-form">${jsonData(data)}</script>`,
      view.lang,
      [LOGIN_SCRIPT],
    );
  }
  return page(
    t.signIn,
    html`${head}
<form method="post" action="${view.action}">
${hidden.map(([name, value]) => html`  <input type="hidden" name="${name}" value="${value}">\n`)}${fields.map(input)}
  <div class="actions"><button type="submit">${submit}</button></div>
</form>`,
    view.lang,
  );
}

function input(field: Field): SafeHtml {
  const focus = field.autofocus ? html` autofocus` : '';
  const value = field.type === 'password' ? '' : html` value="${field.value}"`;
  return html`  <label for="${field.name}">${field.label}</label>
  <input type="${field.type}" id="${field.name}" name="${field.name}" autocomplete="${field.autocomplete}"${focus} \
required${value}>
`;
}
