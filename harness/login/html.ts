/**
 * Reading a served HTML page into a PageModel (page.ts) for the form driver, by parse5's SAX
 * parser: the HTML tokenizer of the spec (attribute quoting, character references, raw text in
 * script, style, textarea and title), so `value="a>b"` and `onsubmit="x > 1"` read as browsers
 * read them. It runs in one linear pass; our own element stack is capped at MAX_DEPTH, and what is
 * collected is capped (MAX_FORMS forms, MAX_CONTROLS controls, MAX_TEXT characters of text): past
 * the caps the parser stops and the model says what was cut. A page of 50,000 buttons or an
 * unclosed tag costs no more than its length.
 */
import { TokenizerMode } from 'parse5';
import { SAXParser, type StartTag } from 'parse5-sax-parser';
import {
  MAX_ALERTS,
  MAX_ALERT_TEXT,
  MAX_CONTROLS,
  MAX_FORMS,
  MAX_FRAMES,
  MAX_METAS,
  MAX_REFERENCES,
  MAX_TEXT,
  type PageAlert,
  type PageMeta,
  type PageControl,
  type PageReference,
  type PageForm,
  type PageModel,
} from './page.ts';
import { ERROR_BOX, HIDDEN_BOX } from './words.ts';

/** A form's submitted values (form-data.ts), where the readers of pages have always found them. */
export { formValues } from './form-data.ts';

/** How deep the reader tracks nesting; deeper elements are read as part of the deepest one tracked. */
export const MAX_DEPTH = 256;

interface Frame {
  name: string;
  /** This element hides what it holds (hidden, display:none, visibility:hidden, <template>, a closed <dialog>). */
  hides: boolean;
  silent: boolean;
  /** A <form> that owns controls until it closes (a nested <form> is ignored, as browsers do). */
  form?: number;
  /** A control whose content is its text (button, a, textarea, select). */
  control?: PageControl;
  option?: { value?: string; selected: boolean; text: string };
  label?: { for?: string; text: string; controls: PageControl[] };
  /** A message box (page.ts PageAlert) whose text is being read. */
  alert?: PageAlert;
  noscript?: boolean;
}

const CONTROL_TAGS = new Set<string>(['input', 'button', 'select', 'textarea', 'a'] satisfies PageControl['tag'][]);
/** Whether an element of this name is a control the model keeps. */
const isControlTag = (name: string): name is PageControl['tag'] => CONTROL_TAGS.has(name);
const VOID = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);
/** Elements whose text is not shown. */
const SILENT = new Set(['script', 'style', 'template', 'head', 'title']);
/** A start tag of these closes an open element of the same name (HTML's implied end tags). */
const SELF_CLOSING_SIBLINGS = new Set(['option', 'button', 'a', 'li', 'p']);
const HIDING_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\b/i;

/**
 * parse5's SAX parser reads as a browser with scripting on, where <noscript> holds raw text. The
 * form driver runs no scripts, so it sees what a browser without scripts shows: markup.
 */
class ScriptlessParser extends SAXParser {
  readNoscriptAsMarkup(): void {
    this.tokenizer.state = TokenizerMode.DATA;
  }
}

function method(value: string | undefined): 'GET' | 'POST' {
  return (value ?? '').trim().toLowerCase() === 'post' ? 'POST' : 'GET';
}

/** Whether an `aria-haspopup` value says the control opens a menu or pop-up (absent, empty and "false" do not). */
function opensMenu(value: string | undefined): boolean {
  const v = (value ?? '').trim().toLowerCase();
  return v !== '' && v !== 'false';
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * The message box an element is, from its role, class and id (page.ts PageAlert), or undefined. A box
 * that a class of the style sheet hides (d-none, hidden, …) is not shown, so not read.
 */
export function alertOf(a: Record<string, string>): PageAlert | undefined {
  const classes = (a.class ?? '').split(/\s+/).filter(Boolean);
  if (classes.some((c) => HIDDEN_BOX.test(c))) return undefined;
  const role = (a.role ?? '').trim().toLowerCase() === 'alert';
  const words = [...classes, a.id ?? ''].flatMap((c) => c.split(/[-_]/));
  const errorClass = words.some((w) => ERROR_BOX.test(w));
  return role || errorClass ? { role, errorClass, text: '' } : undefined;
}

function attributesOf(tag: StartTag): Record<string, string> {
  const a: Record<string, string> = {};
  for (const { name, value } of tag.attrs) if (!(name in a)) a[name] = value;
  return a;
}

/** The page's forms and controls, title and visible text, as a browser would parse them (without running scripts). */
export function readPage(html: string, url: string, status: number): PageModel {
  const forms: PageForm[] = [];
  const controls: PageControl[] = [];
  const formAttribute = new Map<PageControl, string>();
  const labelsFor: { for: string; text: string }[] = [];
  const stack: Frame[] = [];
  // What the open elements add up to, kept as the stack changes (never recomputed per token).
  let hiding = 0;
  let silence = 0;
  let openForm: number | undefined;
  let formDepth = 0;
  const labels: Frame[] = [];
  const inside: Frame[] = [];
  const alerts: PageAlert[] = [];
  const openAlerts: PageAlert[] = [];
  let noscript = 0;
  let text = '';
  let title = '';
  let h1: string | undefined;
  let inTitle = false;
  let inH1 = false;
  let scripts = 0;
  const metas: PageMeta[] = [];
  const frames: string[] = [];
  const references: PageReference[] = [];
  let cut: string | undefined;
  const parser = new ScriptlessParser();

  const newControl = (tag: PageControl['tag'], a: Record<string, string>): PageControl | undefined => {
    if (controls.length >= MAX_CONTROLS) {
      cut = `read the first ${MAX_CONTROLS} controls; the rest of the page was not read`;
      parser.stop();
      return undefined;
    }
    const type =
      tag === 'a'
        ? 'link'
        : (a.type ?? (tag === 'button' ? 'submit' : tag === 'input' ? 'text' : tag)).trim().toLowerCase();
    const control: PageControl = {
      index: controls.length,
      tag,
      type,
      ...(a.name !== undefined ? { name: a.name } : {}),
      ...(a.id ? { id: a.id } : {}),
      value: tag === 'a' ? (a.href ?? '') : (a.value ?? ''),
      text: collapse([a['aria-label'], a.placeholder, a.title].filter(Boolean).join(' ')),
      ...(a.autocomplete ? { autocomplete: a.autocomplete } : {}),
      checked: 'checked' in a,
      disabled: 'disabled' in a,
      visible: type !== 'hidden' && hiding === 0 && !('hidden' in a) && !HIDING_STYLE.test(a.style ?? ''),
      ...(openForm !== undefined ? { form: openForm } : {}),
      scripted:
        tag === 'a'
          ? a.href === undefined || /^\s*javascript:/i.test(a.href) || 'onclick' in a
          : type === 'button' || 'onclick' in a,
      ...(opensMenu(a['aria-haspopup']) || a['aria-expanded'] !== undefined ? { menu: true } : {}),
      ...(a.formaction !== undefined ? { formAction: a.formaction } : {}),
      ...(a.formmethod !== undefined ? { formMethod: method(a.formmethod) } : {}),
    };
    if (a.form !== undefined) formAttribute.set(control, a.form);
    controls.push(control);
    for (const l of labels) l.label!.controls.push(control);
    return control;
  };

  const close = (frame: Frame): void => {
    if (frame.hides) hiding--;
    if (frame.silent) silence--;
    if (frame.name === 'title') inTitle = false;
    if (frame.name === 'h1') inH1 = false;
    if (frame.form !== undefined) openForm = undefined;
    if (frame.name === 'form') formDepth--;
    if (frame.label) {
      labels.pop();
      const words = collapse(frame.label.text);
      if (frame.label.for) labelsFor.push({ for: frame.label.for, text: words });
      else for (const c of frame.label.controls) c.text = collapse(`${c.text} ${words}`);
    }
    if (frame.control || frame.option) inside.pop();
    if (frame.option) {
      const select = [...inside].reverse().find((f) => f.control?.tag === 'select')?.control;
      // The selected option, else the first (HTML's selectedness).
      if (select && (frame.option.selected || !select.checked)) {
        if (frame.option.selected || select.value === '')
          select.value = frame.option.value ?? collapse(frame.option.text);
        if (frame.option.selected) select.checked = true;
      }
    }
    if (frame.control) frame.control.text = collapse(frame.control.text);
    if (frame.noscript) noscript--;
    if (frame.alert) {
      openAlerts.splice(openAlerts.lastIndexOf(frame.alert), 1);
      frame.alert.text = collapse(frame.alert.text).slice(0, MAX_ALERT_TEXT);
    }
  };
  const popTo = (at: number): void => {
    for (const frame of stack.splice(at).reverse()) close(frame);
  };

  parser.on('startTag', (tag: StartTag) => {
    const name = tag.tagName;
    const a = attributesOf(tag);
    if (name === 'script') scripts++;
    if (name === 'noscript') parser.readNoscriptAsMarkup();
    if ((name === 'iframe' || name === 'frame') && a.src !== undefined && frames.length < MAX_FRAMES) {
      frames.push(a.src);
    }
    const reference = referenceOf(name, a);
    if (reference && references.length < MAX_REFERENCES) references.push(reference);
    if (name === 'meta' && metas.length < MAX_METAS && (a.name !== undefined || a['http-equiv'] !== undefined)) {
      metas.push({
        ...(a.name !== undefined ? { name: a.name.trim().toLowerCase() } : {}),
        ...(a['http-equiv'] !== undefined ? { httpEquiv: a['http-equiv'].trim().toLowerCase() } : {}),
        content: a.content ?? '',
      });
    }
    if (SELF_CLOSING_SIBLINGS.has(name)) {
      const open = stack.findLastIndex((f) => f.name === name);
      if (open >= 0) popTo(open);
    }
    let control: PageControl | undefined;
    if (isControlTag(name) && (name !== 'a' || a.href !== undefined || 'onclick' in a || a.role === 'button')) {
      control = newControl(name, a);
      if (cut) return;
    }
    if (VOID.has(name) || (tag.selfClosing && name !== 'form')) return;
    if (stack.length >= MAX_DEPTH) return;
    const frame: Frame = {
      name,
      hides:
        name === 'template' ||
        'hidden' in a ||
        HIDING_STYLE.test(a.style ?? '') ||
        (name === 'dialog' && !('open' in a)),
      silent: SILENT.has(name),
    };
    if (name === 'title') inTitle = true;
    if (name === 'h1' && h1 === undefined) inH1 = true;
    if (name === 'form') {
      formDepth++;
      if (openForm === undefined && formDepth === 1) {
        if (forms.length >= MAX_FORMS) {
          cut = `read the first ${MAX_FORMS} forms; the rest of the page was not read`;
          parser.stop();
          return;
        }
        frame.form = forms.length;
        openForm = forms.length;
        forms.push({
          ...(a.action !== undefined ? { action: a.action } : {}),
          method: method(a.method),
          ...(a.id ? { id: a.id } : {}),
        });
      }
    } else if (name === 'label') {
      frame.label = { ...(a.for ? { for: a.for } : {}), text: '', controls: [] };
      labels.push(frame);
    } else if (name === 'option') {
      frame.option = { ...(a.value !== undefined ? { value: a.value } : {}), selected: 'selected' in a, text: '' };
      inside.push(frame);
    } else if (control) {
      frame.control = control;
      inside.push(frame);
    }
    if (name === 'noscript') {
      frame.noscript = true;
      noscript++;
    }
    // A message box that is shown: not hidden, not a <noscript> message about the browser.
    const alert = hiding === 0 && !frame.hides && noscript === 0 ? alertOf(a) : undefined;
    if (alert && alerts.length < MAX_ALERTS) {
      frame.alert = alert;
      alerts.push(alert);
      openAlerts.push(alert);
    }
    if (frame.hides) hiding++;
    if (frame.silent) silence++;
    stack.push(frame);
  });
  parser.on('endTag', (tag) => {
    const at = stack.findLastIndex((f) => f.name === tag.tagName);
    if (at >= 0) popTo(at);
  });
  parser.on('text', ({ text: data }) => {
    if (inTitle && title.length < 1000) title += data;
    if (inH1 && (h1 ?? '').length < 1000) h1 = (h1 ?? '') + data;
    if (silence > 0 || hiding > 0) return;
    // Adjacent elements' words must not run together.
    if (text.length < MAX_TEXT) text += ` ${data}`;
    for (const l of labels) if (l.label!.text.length < 1000) l.label!.text += data;
    for (const a of openAlerts) if (a.text.length < 2 * MAX_ALERT_TEXT) a.text += ` ${data}`;
    const innermost = inside.at(-1);
    if (innermost?.option && innermost.option.text.length < 1000) innermost.option.text += data;
    const c = innermost?.control;
    if (c && c.tag === 'textarea') c.value += data;
    else if (c && c.tag !== 'select' && c.text.length < 1000) c.text += data;
  });
  parser.write(html);
  parser.end();
  popTo(0);

  // The `form` attribute names its owner by id (HTML's form owner): a button outside the form can submit it.
  for (const [control, id] of formAttribute) {
    const owner = forms.findIndex((f) => f.id === id);
    if (owner < 0) delete control.form;
    else control.form = owner;
  }
  const byId = new Map<string, PageControl>();
  for (const c of controls) if (c.id && !byId.has(c.id)) byId.set(c.id, c);
  for (const label of labelsFor) {
    const control = byId.get(label.for);
    if (control && label.text) control.text = collapse(`${control.text} ${label.text}`);
  }
  for (const c of controls) if (c.tag === 'select') c.checked = false;
  return {
    url,
    status,
    headline: collapse(title || h1 || '').slice(0, 200),
    text: collapse(text).slice(0, MAX_TEXT),
    forms,
    controls,
    scripts,
    ...(cut ? { truncated: cut } : {}),
    ...(alerts.length ? { alerts } : {}),
    ...(metas.length ? { metas } : {}),
    ...(frames.length ? { frames } : {}),
    ...(references.length ? { references } : {}),
  };
}

/** Elements whose src the browser fetches as the page renders. */
const LOADS_SRC = new Set(['script', 'img', 'iframe', 'frame', 'audio', 'video', 'source', 'track', 'embed', 'input']);
/** link rel values the browser fetches without a click. */
const LOADED_RELS = /\b(stylesheet|icon|preload|prefetch|modulepreload|manifest|apple-touch-icon)\b/;

/** The URL an element refers to, if any: what it loads, or where it leads (a link, a form's action). */
function referenceOf(name: string, a: Record<string, string>): PageReference | undefined {
  const rel = (a.rel ?? '').toLowerCase();
  const extra = {
    noreferrer: /(^|\s)noreferrer(\s|$)/.test(rel),
    ...(a.referrerpolicy !== undefined ? { referrerPolicy: a.referrerpolicy.trim().toLowerCase() } : {}),
  };
  if (LOADS_SRC.has(name) && a.src && (name !== 'input' || a.type?.toLowerCase() === 'image'))
    return { kind: 'load', tag: name, url: a.src, ...extra };
  if (name === 'link' && a.href)
    return { kind: LOADED_RELS.test(rel) ? 'load' : 'link', tag: name, url: a.href, ...extra };
  if ((name === 'a' || name === 'area') && a.href) return { kind: 'link', tag: name, url: a.href, ...extra };
  if (name === 'form' && a.action) return { kind: 'link', tag: name, url: a.action, ...extra };
  return undefined;
}
