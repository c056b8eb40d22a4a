/**
 * Reading a live page into a PageModel (page.ts) for the browser driver: the same model the form
 * driver reads from HTML, taken from the DOM after scripts ran, with real visibility. Each control
 * read is marked with a data attribute so the driver can act on exactly the control the shared
 * page walk chose. The reading is capped like the form driver's (MAX_FORMS, MAX_CONTROLS,
 * MAX_TEXT), in the page, so a page of 50,000 buttons costs one pass.
 */
import type { Locator, Page } from 'playwright-core';
import { z } from 'zod';
import {
  MAX_ALERTS,
  MAX_ALERT_TEXT,
  MAX_CONTROLS,
  MAX_FORMS,
  MAX_TEXT,
  type PageControl,
  type PageModel,
} from './page.ts';
import { ERROR_BOX } from './words.ts';

/** The attribute that marks a read control: `data-idpc="<snapshot>-<index>"`. */
const MARK = 'data-idpc';

/**
 * Runs in the page (as a string, so no bundler helper leaks into it). Returns the model's forms,
 * controls, text and script count; marks each control with MARK.
 */
const READ_PAGE =
  `(({ mark, snapshot, maxForms, maxControls, maxText, maxAlerts, maxAlertText, errorBox }) => {
  const forms = [];
  const formIndex = new Map();
  for (let i = 0; i < document.forms.length && forms.length < maxForms; i++) {
    const f = document.forms[i];
    formIndex.set(f, forms.length);
    forms.push({ action: f.getAttribute('action') ?? undefined, method: (f.getAttribute('method') || ` +
  `'').toLowerCase() === 'post' ? 'POST' : 'GET', id: f.id || undefined });
  }
  const found = document.querySelectorAll('input, button, select, textarea, a[href], a[onclick], [role=button]');
  const controls = [];
  const visible = (el) => {
    if (el.type === 'hidden') return false;
    if (typeof el.checkVisibility === 'function') return el.checkVisibility({ visibilityProperty: true });
    return !!(el.offsetWidth || el.offsetHeight || el.getClientRects().length);
  };
  for (let i = 0; i < found.length && controls.length < maxControls; i++) {
    const el = found[i];
    const tag = el.tagName.toLowerCase();
    const kind = ['input', 'button', 'select', 'textarea', 'a'].includes(tag) ? tag : 'button';
    const type = kind === 'a' ? 'link' : kind === 'button' && tag !== 'button' ? 'button' : ` +
  `(el.getAttribute('type') || (kind === 'button' ? 'submit' : kind === 'input' ? 'text' : kind)).toLowerCase();
    const labels = el.labels ? Array.from(el.labels).map((l) => l.innerText).join(' ') : '';
    const own = kind === 'input' ? '' : (el.innerText || el.textContent || '');
    const text = [el.getAttribute('aria-label'), el.getAttribute('placeholder'), el.getAttribute('title'), labels, ` +
  `kind === 'textarea' || kind === 'select' ? '' : own]
      .filter(Boolean).join(' ').replace(/\\s+/g, ' ').trim().slice(0, 1000);
    const href = el.getAttribute('href');
    const index = controls.length;
    el.setAttribute(mark, snapshot + '-' + index);
    const owner = el.form ? formIndex.get(el.form) : undefined;
    controls.push({
      index, tag: kind, type,
      name: el.getAttribute('name') ?? undefined,
      id: el.id || undefined,
      value: kind === 'a' ? (href ?? '') : String(el.value ?? ''),
      text,
      autocomplete: el.getAttribute('autocomplete') || undefined,
      checked: !!el.checked,
      disabled: !!el.disabled || el.getAttribute('aria-disabled') === 'true',
      visible: visible(el),
      form: owner,
      scripted: kind === 'a' ? (href === null || /^\\s*javascript:/i.test(href) || el.hasAttribute('onclick')) : ` +
  `(type === 'button' || el.hasAttribute('onclick')),
      menu: el.hasAttribute('aria-expanded') ||
        !['', 'false'].includes((el.getAttribute('aria-haspopup') || '').trim().toLowerCase()) ? true : undefined,
      formAction: el.getAttribute('formaction') ?? undefined,
      formMethod: el.hasAttribute('formmethod') ? ((el.getAttribute('formmethod') || '').toLowerCase() === 'post' ? ` +
  `'POST' : 'GET') : undefined,
    });
  }
  // Message boxes (page.ts PageAlert): role="alert", or a class or id that names an error; shown ones only.
  const alerts = [];
  const errorWord = new RegExp(errorBox, 'i');
  const boxes = document.querySelectorAll('[role], [class], [id]');
  for (let i = 0; i < boxes.length && i < 20000 && alerts.length < maxAlerts; i++) {
    const el = boxes[i];
    const role = (el.getAttribute('role') || '').trim().toLowerCase() === 'alert';
    const words = ((el.getAttribute('class') || '') + ' ' + (el.id || '')).split(/[\\s_-]+/);
    const errorClass = words.some((w) => errorWord.test(w));
    if (!role && !errorClass) continue;
    if (!visible(el)) continue;
    const text = (el.innerText || '').replace(/\\s+/g, ' ').trim().slice(0, maxAlertText);
    alerts.push({ role, errorClass, text });
  }
  const h1 = document.querySelector('h1');
  // The visible text, a text node at a time with a space between (innerText runs adjacent buttons together:
  // "Change userGrantLogout"), as the HTML reader reads it; at most 50,000 text nodes.
  const words = [];
  let length = 0;
  const shown = new Map();
  const walker = document.body ? document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT) : null;
  let node = walker && walker.nextNode();
  for (let n = 0; node && n < 50000 && length < maxText; n++, node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || ['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE'].includes(el.tagName)) continue;
    if (!shown.has(el)) shown.set(el, visible(el));
    if (!shown.get(el)) continue;
    const data = node.data.trim();
    if (data) {
      words.push(data);
      length += data.length + 1;
    }
  }
  const body = words.join(' ');
  return {
    forms, controls,
    formsSeen: document.forms.length, controlsSeen: found.length,
    headline: (document.title || (h1 ? h1.innerText : '') || '').replace(/\\s+/g, ' ').trim().slice(0, 200),
    text: body.replace(/\\s+/g, ' ').trim().slice(0, maxText),
    scripts: document.scripts.length,
    alerts,
  };
})`;

/** A value the page may leave out (undefined, or null): absent in the model. */
const absent = <T extends z.ZodType>(type: T) => type.nullish().transform((v) => v ?? undefined);
const method = z.enum(['GET', 'POST']);

/** What READ_PAGE returns, parsed: its keys in the order the page writes them. */
const readSchema = z.object({
  forms: z.array(z.object({ action: absent(z.string()), method, id: absent(z.string()) })),
  controls: z.array(
    z.object({
      index: z.number(),
      tag: z.enum(['input', 'button', 'select', 'textarea', 'a']),
      type: z.string(),
      name: absent(z.string()),
      id: absent(z.string()),
      value: z.string(),
      text: z.string(),
      autocomplete: absent(z.string()),
      checked: z.boolean(),
      disabled: z.boolean(),
      visible: z.boolean(),
      form: absent(z.number()),
      scripted: z.boolean(),
      menu: absent(z.boolean()),
      formAction: absent(z.string()),
      formMethod: absent(method),
    }),
  ),
  formsSeen: z.number(),
  controlsSeen: z.number(),
  headline: z.string(),
  text: z.string(),
  scripts: z.number(),
  alerts: z.array(z.object({ role: z.boolean(), errorClass: z.boolean(), text: z.string() })),
});

let snapshots = 0;

/** Drops the keys whose value is undefined (the page returns them; the model's optional fields are absent instead). */
function defined<T extends object>(o: T): T {
  const out = { ...o };
  for (const key of Object.keys(out)) if (Reflect.get(out, key) === undefined) Reflect.deleteProperty(out, key);
  return out;
}

/** A model of a page that shows no document of the IdP (Chromium's own error page, a blank page). */
export function emptyModel(url: string, status: number, headline = ''): PageModel {
  return { url, status, headline, text: '', forms: [], controls: [], scripts: 0 };
}

/** The page as the shared page walk reads it. `status` is the HTTP status of its document. */
export async function readLivePage(page: Page, status: number): Promise<{ model: PageModel; snapshot: string }> {
  const snapshot = `s${++snapshots}`;
  const url = page.url();
  const args = JSON.stringify({
    mark: MARK,
    snapshot,
    maxForms: MAX_FORMS,
    maxControls: MAX_CONTROLS,
    maxText: MAX_TEXT,
    maxAlerts: MAX_ALERTS,
    maxAlertText: MAX_ALERT_TEXT,
    errorBox: ERROR_BOX.source,
  });
  const raw: unknown = await page.evaluate(`${READ_PAGE}(${args})`).catch(() => undefined);
  // Nothing read (the page went away under the reading), or not what READ_PAGE returns: an empty page.
  const parsed = raw === undefined ? undefined : readSchema.safeParse(raw);
  if (!parsed?.success) return { model: emptyModel(url, status), snapshot };
  const read = parsed.data;
  const cut = [
    read.formsSeen > read.forms.length ? `the first ${read.forms.length} of ${read.formsSeen} forms` : '',
    read.controlsSeen > read.controls.length
      ? `the first ${read.controls.length} of ${read.controlsSeen} controls`
      : '',
  ].filter(Boolean);
  return {
    snapshot,
    model: {
      url,
      status,
      headline: read.headline,
      text: read.text,
      forms: read.forms.map(defined),
      controls: read.controls.map(defined),
      scripts: read.scripts,
      ...(read.alerts?.length ? { alerts: read.alerts } : {}),
      ...(cut.length ? { truncated: `read ${cut.join(' and ')}` } : {}),
    },
  };
}

/** The element of a control read in `snapshot`. */
export function locate(page: Page, snapshot: string, control: PageControl): Locator {
  return page.locator(`[${MARK}="${snapshot}-${control.index}"]`);
}
