/** The error page: shown instead of redirecting when the redirect_uri cannot be trusted (RFC 6749 §4.1.2.1). */
import { html, page } from './html.ts';

export function errorPage(view: { error: string; description: string }): string {
  return page(
    'Sign-in error',
    html`<h1>Something went wrong</h1>
<p>The application sent an invalid sign-in request, so you have not been redirected back to it.</p>
<div class="error" role="alert"><code>${view.error}</code>: ${view.description}</div>`,
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
