/**
 * The form login driver (docs/login.md): HTTP only, no browser, no scripts. Its walks are the one page walk (walk.ts)
 * over the HTTP actuator (http-actuator.ts), as http-walk.ts runs them: redirects followed with a cookie jar, each page
 * read by parse5 into the page model, the login (or identifier-first) form filled in, consent answered by the
 * approving (or denying) control, the walk stopped at the redirect to the redirect_uri without fetching it — or at a
 * page it cannot act on. For a device (RFC 8628 §3.3) it enters the user code at the verification URI first (or opens
 * verification_uri_complete).
 *
 * It never presses what it cannot press as the page means it: a control that needs a script, or a deny button whose
 * submission would be the same as approving, ends the walk as an `error` that names the auto and browser drivers.
 */
import { HttpLoginDriver } from './http-walk.ts';

export class FormLoginDriver extends HttpLoginDriver {
  readonly name = 'form';
}
