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
