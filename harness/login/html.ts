/**
 * A tiny HTML form reader for server-rendered login and consent pages: forms, their inputs and
 * submit buttons, with attribute quoting and entity decoding. Not a general HTML parser.
 */
import { LimitExceededError } from '../limits.ts';

export interface FormField {
  tag: 'input' | 'button' | 'select' | 'textarea';
  type: string;
  name?: string;
  value: string;
  /** Visible text (buttons). */
  text: string;
  checked: boolean;
}

export interface HtmlForm {
  action?: string;
  method: 'GET' | 'POST';
  fields: FormField[];
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0', '#39': "'" };

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+\d*);/gi, (m, e: string) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : m;
    }
    return NAMED[e.toLowerCase()] ?? m;
  });
}

export function parseAttributes(source: string): Record<string, string> {
  const attrs: Record<string, string> = {};
  const re = /([^\s=/>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?/g;
  for (const m of source.matchAll(re)) {
    const name = m[1]!.toLowerCase();
    if (!(name in attrs)) attrs[name] = decodeEntities(m[2] ?? m[3] ?? m[4] ?? '');
  }
  return attrs;
}

function stripTags(html: string): string {
  return decodeEntities(html.replace(/<[^>]*>/g, ' ')).replace(/\s+/g, ' ').trim();
}

/** Remove comments, scripts and styles, whose contents are not markup. */
function clean(html: string): string {
  return html.replace(/<!--[\s\S]*?-->/g, '').replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, '');
}

/**
 * Controls: inputs are void elements; buttons, selects and textareas have bodies (read up to
 * 8,000 characters: an unclosed tag does not make every later match scan to the end of the page).
 */
const CONTROLS = /<(?:(input)\b([^>]*)>|(button|select|textarea)\b([^>]*)>([\s\S]{0,8000}?)<\/\3\s*>)/gi;
/**
 * A hostile page cannot make the reader work without bound (DESIGN §9): at most this many forms
 * are read, and a page with more control tags than this is refused (LimitExceededError).
 */
export const MAX_FORMS = 50;
export const MAX_CONTROL_TAGS = 2_000;

function readControl(tag: FormField['tag'], a: Record<string, string>, body: string): FormField {
  let value = a.value ?? '';
  if (tag === 'textarea') value = decodeEntities(body);
  if (tag === 'select') {
    const options = [...body.matchAll(/<option\b([^>]*)>([^<]*)/gi)];
    const chosen = options.find((o) => 'selected' in parseAttributes(o[1] ?? '')) ?? options[0];
    value = chosen ? parseAttributes(chosen[1] ?? '').value ?? stripTags(chosen[2] ?? '') : '';
  }
  const type = (a.type ?? (tag === 'button' ? 'submit' : tag === 'input' ? 'text' : tag)).toLowerCase();
  return {
    tag,
    type,
    ...(a.name !== undefined ? { name: a.name } : {}),
    value,
    text: tag === 'button' ? stripTags(body) : '',
    checked: 'checked' in a,
  };
}

/**
 * The page's forms with their controls. A control belongs to the form named by its `form`
 * attribute (HTML's form owner: a button outside the form can submit it, as oidc-provider's
 * device confirmation page does), else to the form it sits in.
 */
export function parseForms(html: string): HtmlForm[] {
  const source = clean(html);
  const spans: { start: number; end: number; id?: string; form: HtmlForm }[] = [];
  for (const m of source.matchAll(/<form\b([^>]*)>([\s\S]*?)(?:<\/form\s*>|$)/gi)) {
    if (spans.length >= MAX_FORMS) break;
    const attrs = parseAttributes(m[1] ?? '');
    spans.push({
      start: m.index,
      end: m.index + m[0].length,
      ...(attrs.id ? { id: attrs.id } : {}),
      form: {
        ...(attrs.action !== undefined ? { action: attrs.action } : {}),
        method: (attrs.method ?? 'get').toUpperCase() === 'POST' ? 'POST' : 'GET',
        fields: [],
      },
    });
  }
  let tags = 0;
  for (const _ of source.matchAll(/<(?:input|button|select|textarea)\b/gi)) {
    if (++tags > MAX_CONTROL_TAGS) throw new LimitExceededError(`the page has more than ${MAX_CONTROL_TAGS} form control tags; the login form reader reads no page that large`);
  }
  for (const t of source.matchAll(CONTROLS)) {
    const tag = (t[1] ?? t[3])!.toLowerCase() as FormField['tag'];
    const a = parseAttributes(t[2] ?? t[4] ?? '');
    const owner = a.form !== undefined
      ? spans.find((s) => s.id === a.form)
      : spans.find((s) => t.index >= s.start && t.index < s.end);
    owner?.form.fields.push(readControl(tag, a, t[5] ?? ''));
  }
  return spans.map((s) => s.form);
}

export function isSubmit(f: FormField): boolean {
  return (f.tag === 'button' && f.type === 'submit') || (f.tag === 'input' && (f.type === 'submit' || f.type === 'image'));
}

/**
 * The values a browser would submit: named fields with their values (checkboxes and radios only
 * when checked, no submit buttons except the one clicked), with `overrides` applied.
 */
export function formValues(form: HtmlForm, overrides: Record<string, string> = {}, clicked?: FormField): [string, string][] {
  const out: [string, string][] = [];
  for (const f of form.fields) {
    if (!f.name || isSubmit(f) || f.tag === 'button') continue;
    if ((f.type === 'checkbox' || f.type === 'radio') && !f.checked) continue;
    out.push([f.name, Object.hasOwn(overrides, f.name) ? overrides[f.name]! : f.value]);
  }
  for (const [name, value] of Object.entries(overrides)) if (!out.some(([n]) => n === name)) out.push([name, value]);
  if (clicked?.name) out.push([clicked.name, clicked.value]);
  return out;
}

/** The page's title or first heading, for error messages. */
export function pageHeadline(html: string): string {
  const m = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html) ?? /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(html);
  return m ? stripTags(m[1] ?? '').slice(0, 200) : '';
}
