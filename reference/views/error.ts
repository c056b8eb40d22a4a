/** The error page: shown instead of redirecting when the redirect_uri cannot be trusted (RFC 6749 §4.1.2.1). */
import { html, page } from './html.ts';
import { type Lang, words } from './locale.ts';

export function errorPage(view: { error: string; description: string; lang?: Lang }): string {
  const t = words(view.lang);
  return page(
    t.errorTitle,
    html`<h1>${t.errorHeading}</h1>
<p>${t.errorText}</p>
<div class="error" role="alert"><code>${view.error}</code>: ${view.description}</div>`,
    view.lang,
  );
}
