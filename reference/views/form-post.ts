/**
 * The form_post response page (OAuth 2.0 Form Post Response Mode §2): a form, method POST, to the client's
 * redirect_uri with the response parameters as hidden fields, submitted by the page itself. How it submits:
 * - 'onload' (the plain reference): `<body onload="…">`, as Keycloak's and Spring Security's form_post pages do;
 * - 'script' (variant form-post-script): a `<script>` that submits on DOMContentLoaded, no onload attribute, as
 *   oidc-provider's formPost does;
 * - 'never' (flaw form-post-not-submitting): the onload handler sits on a `<div>`, where no load event ever fires, so
 *   the page stays on "Submit this form" (a real product's fault, issue 39).
 * The one script or handler is allowed by its hash (FORM_POST_SCRIPT_SOURCES) in the page's Content-Security-Policy.
 */
import { html, SafeHtml, scriptSource } from './html.ts';
import { type Lang, words } from './locale.ts';

export type FormPostSubmit = 'onload' | 'script' | 'never';

/** The handler of the onload attribute (an event handler: allowed by CSP only with 'unsafe-hashes'). */
const ONLOAD = 'document.forms[0].submit()';
/** The script of the 'script' page (oidc-provider's formPost). */
const SCRIPT = "document.addEventListener('DOMContentLoaded', function () { document.forms[0].submit() });";

/** The script-src sources the page of each kind needs. */
export const FORM_POST_SCRIPT_SOURCES: Record<FormPostSubmit, string> = {
  onload: `'unsafe-hashes' ${scriptSource(ONLOAD)}`,
  never: `'unsafe-hashes' ${scriptSource(ONLOAD)}`,
  script: scriptSource(SCRIPT),
};

export function formPostPage(view: {
  action: string;
  fields: readonly [string, string][];
  submit?: FormPostSubmit;
  lang?: Lang;
}): string {
  const t = words(view.lang);
  const submit = view.submit ?? 'onload';
  const hidden = view.fields.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  const head = submit === 'script' ? html`<script>${new SafeHtml(SCRIPT)}</script>\n` : '';
  const body = submit === 'onload' ? html`<body onload="${ONLOAD}">` : html`<body>`;
  const form = html`<form method="post" action="${view.action}">
${hidden}
<noscript><button type="submit">${t.continue}</button></noscript>
</form>`;
  return html`<!doctype html>
<html lang="${view.lang ?? 'en'}">
<head>
<meta charset="utf-8">
<title>${t.submitForm}</title>
${head}</head>
${body}
${submit === 'never' ? html`<div onload="${ONLOAD}">${form}</div>` : form}
</body>
</html>
`.value;
}
