/** The error page: shown instead of redirecting when the redirect_uri cannot be trusted (RFC 6749 §4.1.2.1). */
import { html, page } from './html.ts';
import { type Lang, words } from './locale.ts';

/**
 * A documentation link on another origin, as real products' error pages carry: the page's Referrer-Policy
 * (no-referrer, reference/http/headers.ts) is what keeps the page's URL, with the request, from that site.
 */
const ERROR_DOCUMENTATION = 'https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2.1';

export function errorPage(view: { error: string; description: string; lang?: Lang }): string {
  const t = words(view.lang);
  return page(
    t.errorTitle,
    html`<h1>${t.errorHeading}</h1>
<p>${t.errorText}</p>
<div class="error" role="alert"><code>${view.error}</code>: ${view.description}</div>
<p><a href="${ERROR_DOCUMENTATION}">${t.errorDocumentation}</a></p>`,
    view.lang,
  );
}

/**
 * A plain page that says an error occurred: HTTP 200, no error class, no alert box, nothing to act on (as some OAuth
 * frameworks show an invalid authorization request). Only the flaw authorize-errors-as-page shows it.
 */
export function plainErrorPage(view: { error: string; description: string }): string {
  return page(
    'An error has occurred',
    html`<h1>An error has occurred</h1><pre>${view.error}: ${view.description}</pre>`,
  );
}
