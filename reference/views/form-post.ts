/**
 * The form_post response page (OAuth 2.0 Form Post Response Mode §2): a form, method POST, to the client's
 * redirect_uri with the response parameters as hidden fields, submitted by the page's one script on load.
 */
import { createHash } from 'node:crypto';
import { html, SafeHtml } from './html.ts';

/** The page's only script: it submits the form. Its hash is what the page's Content-Security-Policy allows. */
const SUBMIT = 'document.forms[0].submit();';

export const FORM_POST_SCRIPT_HASH = `sha256-${createHash('sha256').update(SUBMIT).digest('base64')}`;

export function formPostPage(view: { action: string; fields: readonly [string, string][] }): string {
  const hidden = view.fields.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Submit this form</title>
</head>
<body>
<form method="post" action="${view.action}">
${hidden}
<noscript><button type="submit">Continue</button></noscript>
</form>
<script>${new SafeHtml(SUBMIT)}</script>
</body>
</html>
`.value;
}
