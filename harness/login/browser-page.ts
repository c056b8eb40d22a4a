/**
 * Reading a live page as a user would, for the browser driver's defaults: the login form (the
 * one with a visible password input), the buttons that approve or deny, and the input a device's
 * user code goes into. Only visible controls count, so script-rendered pages work too.
 */
import type { Locator, Page } from 'playwright-core';
import { TEXT_INPUT_TYPES, USER_CODE_NAME, gives } from './words.ts';

const TEXT_INPUTS = `:is(input:not([type]), ${[...TEXT_INPUT_TYPES, 'email'].map((t) => `input[type=${t}]`).join(', ')}):visible`;
const PASSWORD = 'input[type=password]:visible';
const BUTTONS = ':is(button:not([type=reset]), input[type=submit], input[type=image], input[type=button]):visible';
const SUBMITS = ':is(button:not([type=reset]):not([type=button]), input[type=submit], input[type=image]):visible';
/** Attributes that name a login form's username input. */
const USERNAME_HINT = /user|login|email|account|name|identifier/i;

export interface Control {
  locator: Locator;
  /** Name, value and visible text: what the decision words are matched against. */
  reads: string;
  /** Value and visible text only (a button named "decision" may still say "Deny"). */
  label: string;
  /** What the user sees on it. */
  shown: string;
}

async function attr(locator: Locator, name: string): Promise<string> {
  return (await locator.getAttribute(name, { timeout: 1_000 }).catch(() => null)) ?? '';
}

async function all(locator: Locator): Promise<Locator[]> {
  return locator.all().catch(() => []);
}

/** What a control says: its name, value and visible text. */
export async function readControl(locator: Locator): Promise<Control> {
  const text = await locator.innerText({ timeout: 1_000 }).catch(() => '');
  const value = await attr(locator, 'value');
  const label = `${value} ${text}`.replace(/\s+/g, ' ').trim();
  return { locator, label, reads: `${await attr(locator, 'name')} ${label}`, shown: (text.trim() || value).replace(/\s+/g, ' ') };
}

/** The visible buttons of a page (or of one form). */
export async function buttons(scope: Page | Locator, selector = BUTTONS): Promise<Control[]> {
  return Promise.all((await all(scope.locator(selector))).map(readControl));
}

/** The first visible control that approves (or denies), anywhere on the page: a button may sit outside its form. */
export async function decisionControl(page: Page, decision: 'approve' | 'deny'): Promise<Control | undefined> {
  return (await buttons(page)).find((c) => gives(decision, c.reads, c.label));
}

export interface LoginForm {
  username?: Locator;
  password: Locator;
  /** The form's submit button (not a cancel); absent: submit by Enter in the password field. */
  submit?: Locator;
}

/** The form with a visible password input, its username input (when there is one) and its submit button. */
export async function loginForm(page: Page): Promise<LoginForm | undefined> {
  const password = page.locator(PASSWORD).first();
  if ((await password.count()) === 0) return undefined;
  const form = page.locator('form', { has: page.locator(PASSWORD) }).first();
  const scope = (await form.count()) > 0 ? form : page.locator('body');
  const inputs = await all(scope.locator(TEXT_INPUTS));
  let username = inputs[0];
  for (const input of inputs) {
    const hints = `${await attr(input, 'name')} ${await attr(input, 'id')} ${await attr(input, 'autocomplete')}`;
    if (USERNAME_HINT.test(hints)) {
      username = input;
      break;
    }
  }
  const submit = (await buttons(scope, SUBMITS)).find((c) => !gives('deny', c.reads, c.label));
  return { password, ...(username ? { username } : {}), ...(submit ? { submit: submit.locator } : {}) };
}

/**
 * The input a user types a device's user code into (RFC 8628 §3.3): a visible text input named
 * like a code, or the only visible text input of a page without a password input.
 */
export async function userCodeInput(page: Page): Promise<{ input: Locator; submit?: Locator } | undefined> {
  const inputs = await all(page.locator(TEXT_INPUTS));
  let input: Locator | undefined;
  for (const candidate of inputs) {
    if (USER_CODE_NAME.test(`${await attr(candidate, 'name')} ${await attr(candidate, 'id')}`)) {
      input = candidate;
      break;
    }
  }
  if (!input && inputs.length === 1 && (await page.locator(PASSWORD).count()) === 0) input = inputs[0];
  if (!input) return undefined;
  const form = page.locator('form', { has: input }).first();
  const submit = (await form.count()) > 0 ? (await buttons(form, SUBMITS)).find((c) => !gives('deny', c.reads, c.label)) : undefined;
  return { input, ...(submit ? { submit: submit.locator } : {}) };
}

/** Whether the page still offers something to fill in or press. */
export async function hasControls(page: Page): Promise<boolean> {
  return (await page.locator(`${BUTTONS}, ${TEXT_INPUTS}, ${PASSWORD}`).count()) > 0;
}
