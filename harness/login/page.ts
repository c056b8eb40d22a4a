/**
 * One page walk for both login drivers: what a page of an IdP is (a login, an identifier-first
 * login, a user-code entry, a consent, an interstitial, an error, or nothing the drivers know) and
 * which of its controls to use, decided from a `PageModel`. The form driver builds the model from
 * the HTML it fetched (html.ts); the browser driver from the live page (browser-page.ts). The
 * classification is the same function for both, so the drivers cannot drift apart.
 */
import { CONTINUE, DENY, ERROR_WORDING, TEXT_INPUT_TYPES, USER_CODE_NAME, gives, isAccountControl } from './words.ts';

/** The most forms and controls a page is read for (a hostile page may carry 50,000 buttons). */
export const MAX_FORMS = 100;
export const MAX_CONTROLS = 500;
/** The most visible text kept from a page (for the wording of a consent page). */
export const MAX_TEXT = 20_000;
/** The most message boxes read from a page, and the most characters kept of each. */
export const MAX_ALERTS = 20;
/** At most this many `<meta name>` / `<meta http-equiv>` tags are read from a page. */
export const MAX_METAS = 64;
export const MAX_FRAMES = 64;
/** At most this many references (resources loaded, links, form actions) are read from a page. */
export const MAX_REFERENCES = 256;
export const MAX_ALERT_TEXT = 200;

export interface PageControl {
  /** Its position among the page's controls in document order; the browser driver finds it by this. */
  index: number;
  tag: 'input' | 'button' | 'select' | 'textarea' | 'a';
  /** Lower case: text, password, submit, checkbox, button, … (links: "link"). */
  type: string;
  name?: string;
  id?: string;
  /** The value it submits (links: the href). */
  value: string;
  /** What it says: visible text, aria-label, its <label>, placeholder. */
  text: string;
  autocomplete?: string;
  checked: boolean;
  disabled: boolean;
  /** Shown to the user (not type=hidden, not inside something hidden). */
  visible: boolean;
  /** Its form owner (an index into `forms`): the form it sits in, or the one its `form` attribute names. */
  form?: number;
  /** Works only through a script: a type=button control, an onclick handler, a javascript: link. */
  scripted: boolean;
  /**
   * Opens a menu, a pop-up or a collapsed section (WAI-ARIA 1.2: `aria-haspopup` other than "false", or an
   * `aria-expanded` state): a menu button ("Manage", a language picker) or a disclosure ("Toggle navigation"), no
   * answer to the request.
   */
  menu?: boolean;
  /** A submit button's formaction / formmethod. */
  formAction?: string;
  formMethod?: 'GET' | 'POST';
}

/**
 * A message box the page shows: an element with role="alert" (WAI-ARIA: an important message), or
 * one whose class or id names an error box (words.ts ERROR_BOX). Boxes inside <noscript> (a
 * message about the browser, not the request) or hidden are not read.
 */
export interface PageAlert {
  /** role="alert". */
  role: boolean;
  /** Its class or id names an error box ("error", "alert-danger", "message-negative", …). */
  errorClass: boolean;
  /** Its text, whitespace collapsed, at most MAX_ALERT_TEXT characters; empty when a script fills it in later. */
  text: string;
}

export interface PageForm {
  action?: string;
  method: 'GET' | 'POST';
  id?: string;
}

export interface PageModel {
  url: string;
  /** The HTTP status of the document (0 when unknown). */
  status: number;
  /** The title, else the first heading. */
  headline: string;
  /** The visible text, whitespace collapsed, at most MAX_TEXT characters. */
  text: string;
  forms: PageForm[];
  controls: PageControl[];
  /** How many script elements the page has (a page without controls but with scripts may render later). */
  scripts: number;
  /** What the reader left out because of the caps, e.g. "read the first 500 of 50000 controls". */
  truncated?: string;
  /** The message boxes it shows, in document order (at most MAX_ALERTS). */
  alerts?: PageAlert[];
  /** Its `<meta name>` and `<meta http-equiv>` tags, in document order (names lower-cased; at most MAX_METAS). */
  metas?: PageMeta[];
  /** The src of its `<iframe>` and `<frame>` elements as written, in document order (at most MAX_FRAMES). */
  frames?: string[];
  /**
   * What the page makes the browser request or lets the user follow, in document order (at most MAX_REFERENCES):
   * where a browser may send the page's URL as Referer (W3C Referrer Policy §3).
   */
  references?: PageReference[];
}

/** A URL a page refers to: a resource it loads, a link, a form's action. */
export interface PageReference {
  /** `load`: fetched as the page renders (src, stylesheet, icon, preload); `link`: a link or a form's action. */
  kind: 'load' | 'link';
  tag: string;
  /** The URL as written (resolve it against the page's URL). */
  url: string;
  /** rel="noreferrer" (links: no Referer at all, HTML §4.6.6.15). */
  noreferrer: boolean;
  /** Its referrerpolicy attribute, lower-cased, when it has one. */
  referrerPolicy?: string;
}

/** A `<meta>` tag that names a value (`name="referrer"`) or stands for a header (`http-equiv="refresh"`). */
export interface PageMeta {
  name?: string;
  httpEquiv?: string;
  content: string;
}

/** Words of a page that asks for access on the user's behalf (a consent page). */
export const ACCESS_WORDING = new RegExp(
  String.raw`\b(access|permissions?|scopes?|authori[sz]e|authori[sz]ation|consent|allow|grant|wants? to|` +
    'would like to|is (?:asking|requesting)|on your behalf|' +
    // German (words.ts): access, permission(s), consent, would like to, asks for, on your behalf
    String.raw`zugriff|berechtigung(?:en)?|zustimmung|einwilligung|möchte|bittet um|in ihrem namen)\b`,
  'i',
);
/** Attributes that name a login form's username input (German: Benutzer, Kennung). */
export const USERNAME_HINT = /user|login|email|e-mail|account|identifier|name|phone|benutzer|kennung/i;

export type PageClass =
  /**
   * Nothing to sign in with, and an HTTP error status or a message box that reports an error
   * (errorAlert): `alert` is what that box says.
   */
  | { kind: 'error'; alert?: PageAlert }
  /** A visible password input: fill in the user (when asked here) and the password. */
  | { kind: 'login'; username?: PageControl; password: PageControl; submit?: PageControl }
  /** Identifier-first: a username input without a password input; the password comes on the next page. */
  | { kind: 'identifier'; username: PageControl; submit?: PageControl }
  /** The input a device's user code goes into (RFC 8628 §3.3), and its submit button. */
  | { kind: 'user-code'; input: PageControl; submit?: PageControl }
  /**
   * A page that asks for access: approve and/or deny controls, and either wording about access
   * or both choices. `choices` are unchecked checkboxes of the page (per-scope consent) that an
   * approving user ticks.
   */
  | { kind: 'consent'; approve?: PageControl; deny?: PageControl; choices: PageControl[] }
  /** One button that moves on ("Continue", "Yes") on a page that asks for no access: an interstitial. */
  | { kind: 'continue'; submit: PageControl }
  /**
   * Nothing a driver knows: no controls (links, menus and account controls do not count), or controls that are none
   * of the above.
   */
  | { kind: 'other'; controls: boolean };

export interface ClassifyOptions {
  /** A device activation that has not yet sent the user code: a lone text input is the code's. */
  wantsUserCode?: boolean;
  usernameField?: string;
  passwordField?: string;
}

const BUTTON_TYPES = new Set(['submit', 'image', 'button']);

/** A control a user presses: a button (not reset), a submit/image/button input, a link. */
export function isPressable(c: PageControl): boolean {
  if (c.tag === 'a') return true;
  if (c.tag === 'button') return c.type !== 'reset';
  return c.tag === 'input' && BUTTON_TYPES.has(c.type);
}

/** A control that submits its form when pressed, without a script. */
export function isSubmit(c: PageControl): boolean {
  return (
    (c.tag === 'button' && c.type === 'submit') || (c.tag === 'input' && (c.type === 'submit' || c.type === 'image'))
  );
}

/** What a control says, for the decision words: its name, value and text (links: only the text). */
export function reads(c: PageControl): { reads: string; label: string } {
  const label = `${c.tag === 'a' ? '' : c.value} ${c.text}`.replace(/\s+/g, ' ').trim();
  return { label, reads: `${c.name ?? ''} ${label}`.trim() };
}

export function says(c: PageControl, decision: 'approve' | 'deny'): boolean {
  const r = reads(c);
  return gives(decision, r.reads, r.label);
}

function usable(c: PageControl): boolean {
  return c.visible && !c.disabled;
}

function isTextInput(c: PageControl): boolean {
  return c.tag === 'input' && (TEXT_INPUT_TYPES.has(c.type) || c.type === 'email');
}

function hints(c: PageControl): string {
  return `${c.name ?? ''} ${c.id ?? ''} ${c.autocomplete ?? ''} ${c.text}`;
}

/**
 * The submit control of a form that moves on (not a cancel): the first that does not deny. An account or navigation
 * control (a menu or disclosure button, "Logout") never submits what the user typed in: it is chosen only when the
 * form has nothing else. A shown button that is disabled counts after the enabled ones: a page often enables its
 * submit only once the input is filled in (Glewlwyd's device page: "OK" next to the empty code input).
 */
function submitOf(model: PageModel, form: number | undefined, near?: PageControl): PageControl | undefined {
  const candidates = model.controls.filter((c) => c.visible && isPressable(c) && c.tag !== 'a' && !says(c, 'deny'));
  const pressable = [...candidates.filter((c) => !c.disabled), ...candidates.filter((c) => c.disabled)];
  const inForm = form === undefined ? [] : pressable.filter((c) => c.form === form);
  const chosen = inForm.find(isSubmit) ?? inForm.find((c) => !isAccountOrNavigation(c)) ?? inForm[0];
  if (chosen || form !== undefined) return chosen;
  // No form (a script-rendered page): the first shown button after the input, else any; a menu button (the page's
  // navigation) is no submit of the input next to it.
  const buttons = pressable.filter((c) => !isAccountOrNavigation(c));
  return buttons.find((c) => near && c.index > near.index) ?? buttons[0];
}

/** The user-code input: named (or labelled) like a code, or — when one is expected — the only text input. */
function userCodeInput(inputs: PageControl[], wanted: boolean): PageControl | undefined {
  const named = inputs.find((c) => USER_CODE_NAME.test(hints(c)) && !/password/i.test(hints(c)));
  if (named) return named;
  return wanted && inputs.length === 1 && !USERNAME_HINT.test(hints(inputs[0]!)) ? inputs[0] : undefined;
}

/**
 * The page's message box that reports an error: a role="alert" box whose class names an error or
 * whose words do (an empty live region is none), or a box whose class names an error and that
 * says something. Markup that holds on any IdP, never one product's wording.
 */
export function errorAlert(model: PageModel): PageAlert | undefined {
  return model.alerts?.find((a) => isErrorEvidence(a));
}

/**
 * Whether a message box is evidence of an error: a role="alert" box with an error class (empty too: a script fills it
 * in) or with words that read as an error, or a box whose class names an error and whose words read as one. A class
 * alone is styling (a "Logout" button styled btn-danger), and what an account or navigation control says ("Logout",
 * "Sign out", "Change user") is never evidence.
 */
function isErrorEvidence(a: PageAlert): boolean {
  if (isAccountControl(a.text)) return false;
  if (a.role) return a.errorClass || ERROR_WORDING.test(a.text);
  return a.errorClass && ERROR_WORDING.test(a.text);
}

/** An account or navigation control (sign out, change user, a menu or disclosure button): no answer to the request. */
function isAccountOrNavigation(c: PageControl): boolean {
  return c.menu === true || isAccountControl(reads(c).label);
}

/** How an error page reads in a reason: its status and what its error box says. */
export function describeError(model: PageModel, alert?: PageAlert): string {
  if (!alert) return `an error page (HTTP ${model.status})`;
  const what = alert.text ? `"${alert.text}"` : 'nothing yet (filled in by script)';
  const box = alert.role ? 'a role="alert" box' : 'an error box';
  return `an error page (HTTP ${model.status}; ${box} that says ${what})`;
}

export function classify(model: PageModel, options: ClassifyOptions = {}): PageClass {
  const visible = model.controls.filter(usable);
  const passwordName = options.passwordField ?? 'password';
  const password =
    visible.find((c) => c.tag === 'input' && c.type === 'password') ??
    visible.find((c) => c.tag === 'input' && c.name === passwordName && c.type !== 'hidden');
  const inputs = visible.filter(isTextInput);
  if (password) {
    const scope = password.form === undefined ? inputs : inputs.filter((c) => c.form === password.form);
    const username =
      (options.usernameField ? scope.find((c) => c.name === options.usernameField) : undefined) ??
      scope.find((c) => USERNAME_HINT.test(hints(c))) ??
      scope.find((c) => c.index < password.index);
    const submit = submitOf(model, password.form, password);
    return { kind: 'login', password, ...(username ? { username } : {}), ...(submit ? { submit } : {}) };
  }
  const code = userCodeInput(inputs, options.wantsUserCode === true);
  if (code) {
    const submit = submitOf(model, code.form, code);
    return { kind: 'user-code', input: code, ...(submit ? { submit } : {}) };
  }
  const username =
    (options.usernameField ? inputs.find((c) => c.name === options.usernameField) : undefined) ??
    inputs.find((c) => USERNAME_HINT.test(hints(c)) || c.type === 'email') ??
    (inputs.length === 1 && !options.wantsUserCode ? inputs[0] : undefined);
  if (username) {
    const submit = submitOf(model, username.form, username);
    return { kind: 'identifier', username, ...(submit ? { submit } : {}) };
  }
  // An error status: the page is an error page, unless it asks for the code or the user again (a wrong entry).
  if (model.status >= 400) {
    const alert = errorAlert(model);
    return { kind: 'error', ...(alert ? { alert } : {}) };
  }
  const pressable = visible.filter(isPressable);
  const approve = pressable.find((c) => c.tag !== 'a' && says(c, 'approve'));
  const deny = pressable.find((c) => says(c, 'deny'));
  const asks = ACCESS_WORDING.test(model.text);
  if ((approve && (deny || asks)) || (deny && asks)) {
    const decisionForm = approve?.form ?? deny?.form;
    const choices = visible.filter(
      (c) =>
        c.tag === 'input' &&
        c.type === 'checkbox' &&
        !c.checked &&
        (decisionForm === undefined || c.form === decisionForm),
    );
    return { kind: 'consent', ...(approve ? { approve } : {}), ...(deny ? { deny } : {}), choices };
  }
  // A page that shows an error box and asks for nothing: the IdP's error page, whatever its status.
  const alert = errorAlert(model);
  if (alert) return { kind: 'error', alert };
  // A button that says nothing (an icon: "back to top") is no choice a user makes.
  // Nor is an account or navigation control ("Logout", "Change user", a menu button: a signed-in page's "Continue" is
  // its one choice).
  const buttons = pressable.filter((c) => c.tag !== 'a' && reads(c).reads !== '' && !isAccountOrNavigation(c));
  if (buttons.length === 1 && CONTINUE.test(reads(buttons[0]!).label) && !DENY.test(reads(buttons[0]!).label))
    return { kind: 'continue', submit: buttons[0]! };
  // Controls a user would act on; a page whose only buttons are its menus or account controls offers nothing to do.
  const actionable = (c: PageControl) =>
    c.tag !== 'a' && !isAccountOrNavigation(c) && (isPressable(c) || isTextInput(c));
  return { kind: 'other', controls: visible.some(actionable) };
}

/**
 * The form's default button (HTML: the first submit button in tree order whose form owner it is):
 * what Enter presses.
 */
export function defaultButton(model: Pick<PageModel, 'controls'>, form: number | undefined): PageControl | undefined {
  return form === undefined ? undefined : model.controls.find((c) => c.form === form && isSubmit(c));
}

/**
 * Why the form driver cannot press `control` (it needs a script, or submits the same as another), or undefined when it
 * can. Given the page, an approving control that submits what the other choice submits may be pressed when it is its
 * form's default button: that submits the form as served, as Enter does, taken to be the approval (a script turns the
 * other button into a refusal: LemonLDAP::NG's consent page, docs/login.md). Were that wrong, the walk would end in a
 * refusal where an approval was wanted (visible, never a grant); a deny pressed so could grant instead, so a deny is
 * never pressed so.
 */
export function whyNotSubmittable(control: PageControl, other?: PageControl, model?: PageModel): string | undefined {
  if (control.tag === 'a')
    return control.scripted || !control.value || control.value.startsWith('#')
      ? 'a link that works by script'
      : undefined;
  // Disabled as served: only a script (on what is typed in) can enable it.
  if (control.disabled) return 'a disabled button that a script enables';
  if (control.scripted)
    return control.tag === 'input' || control.type === 'button'
      ? `a ${control.type} control that works by script`
      : 'a button with a script handler';
  if (!isSubmit(control)) return 'not a submit button';
  if (control.form === undefined) return 'a button outside any form';
  // Pressed, a submit button adds its own name=value: two in one form that add the same thing (nothing) cannot be told
  // apart.
  const sends = (c: PageControl) =>
    `${c.name ? `${c.name}=${c.value}` : ''} ${c.formAction ?? ''} ${c.formMethod ?? ''}`;
  if (other && isSubmit(other) && !other.scripted && other.form === control.form && sends(other) === sends(control)) {
    const isDefault = defaultButton(model ?? { controls: [] }, control.form) === control;
    if (model && says(control, 'approve') && !says(other, 'approve') && isDefault) return undefined;
    return (
      `a button that submits exactly what "${reads(other).label || 'the other choice'}" submits (same ` +
      `form, ${control.name ? 'same name and value' : 'neither has a name'})`
    );
  }
  return undefined;
}
