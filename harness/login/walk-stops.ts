/**
 * Why a page walk (walk.ts) stops on a page it does not act on: the reason in words, whether the page asks the user
 * for nothing (EndPage.asksNothing), and whether it is a page over HTTP that only its scripts would render.
 */
import { type Actuator, type Reading, USE_BROWSER } from './actuator.ts';
import { type PageClass, type PageModel, describeError } from './page.ts';

/** Why a page with nothing to act on stopped the walk. */
export function stopReason(a: Actuator, model: PageModel, cls: PageClass, decision: 'approve' | 'deny'): string {
  const cut = model.truncated ? ` (${model.truncated})` : '';
  if (cls.kind === 'error') return `${describeError(model, cls.alert)}${cut}`;
  if (cls.kind === 'consent') {
    return decision === 'deny'
      ? `a page that asks for access but offers no deny, cancel or abort control (HTTP ${model.status})${cut}`
      : `a page that asks for access but offers no approving control (HTTP ${model.status})${cut}`;
  }
  if (cls.kind === 'other' && !cls.controls && model.scripts > 0) {
    return a.renderWait
      ? `a page with no login form and no ${decision} control (HTTP ${model.status}; ${a.renderWait})${cut}`
      : `a page without a form or button that runs scripts (HTTP ${model.status}): a page rendered by script ` +
          `cannot be used without running it; ${USE_BROWSER}${cut}`;
  }
  const what =
    model.forms.length || (cls.kind === 'other' && cls.controls)
      ? 'a page with controls the driver does not recognize as login or consent'
      : 'a page without a form';
  return `${what} (HTTP ${model.status})${cut}`;
}

/** A page that asks the user for nothing (EndPage.asksNothing): an error page, or one with no control to act on. */
export function asksNothing(a: Actuator, r: Reading): boolean {
  return r.cls.kind === 'error' || (r.cls.kind === 'other' && !r.cls.controls && !renderedByScript(a, r));
}

/** A page that shows nothing to act on and runs scripts: over HTTP, rendered by script (nothing to read yet). */
export function renderedByScript(a: Actuator, r: Reading): boolean {
  return a.name === 'http' && r.cls.kind === 'other' && !r.cls.controls && r.model.scripts > 0;
}
