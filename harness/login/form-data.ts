/**
 * What a form submits, as a browser builds it (HTML's form data set) from the page model: the HTTP actuator's
 * submissions, and a form_post form's fields taken off the page.
 */
import { type PageControl, type PageModel, isSubmit } from './page.ts';

/**
 * The values a browser submits for `form` (HTML's form data set): named, enabled controls of the
 * form; checkboxes and radios only when checked; no buttons except the one pressed; `overrides`
 * replace values (and are added when the form has no such field); `check` ticks checkboxes.
 */
export function formValues(
  model: PageModel,
  form: number,
  overrides: Record<string, string> = {},
  pressed?: PageControl,
  check: PageControl[] = [],
): [string, string][] {
  const out: [string, string][] = [];
  for (const c of model.controls) {
    if (
      c.form !== form ||
      !c.name ||
      c.disabled ||
      c.tag === 'a' ||
      c.tag === 'button' ||
      isSubmit(c) ||
      c.type === 'button' ||
      c.type === 'reset'
    )
      continue;
    const ticked = c.checked || check.includes(c);
    if ((c.type === 'checkbox' || c.type === 'radio') && !ticked) continue;
    const value = (c.type === 'checkbox' || c.type === 'radio') && c.value === '' ? 'on' : c.value;
    out.push([c.name, Object.hasOwn(overrides, c.name) ? overrides[c.name]! : value]);
  }
  for (const [name, value] of Object.entries(overrides)) if (!out.some(([n]) => n === name)) out.push([name, value]);
  if (pressed?.name && !pressed.disabled) out.push([pressed.name, pressed.value]);
  return out;
}
