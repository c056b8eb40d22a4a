/**
 * How a login driver recognizes controls by what they say: the buttons that approve or deny a
 * request, and the input a device's user code goes into. Shared by the form and browser drivers.
 * In English and in German (an IdP localized to German, as Keycloak's and Auth0's pages are: variant
 * locale-de of the reference); a word that is not English is written beside its English one.
 */

export const APPROVE = new RegExp(
  String.raw`\b(allow|approve|accept|consent|yes|continue|authori[sz]e|grant|confirm|agree|` +
    // German: allow, permit, agree, accept, approve, grant, confirm, authorize, go on, yes, agreed
    'zulassen|erlauben|zustimmen|akzeptieren|genehmigen|gewähren|bestätigen|autorisieren|fortfahren|' +
    String.raw`weiter|ja|einverstanden)\b`,
  'i',
);
export const DENY = new RegExp(
  String.raw`\b(deny|decline|reject|cancel|abort|no|refuse|disallow|` +
    // German: decline, refuse, cancel, no, reject, do not allow
    String.raw`ablehnen|verweigern|abbrechen|nein|zurückweisen|nicht (?:zulassen|erlauben))\b`,
  'i',
);

/** Whether a control reading `text` (its name, value and label) gives `decision`. */
export function gives(decision: 'approve' | 'deny', text: string, label = text): boolean {
  return decision === 'deny' ? DENY.test(text) : APPROVE.test(text) && !DENY.test(label);
}

/** Input types a user types a user code into (RFC 8628 §3.3). */
export const TEXT_INPUT_TYPES = new Set(['text', 'search', 'tel', 'number']);

/** An input named (or labelled by id) like a code. */
export const USER_CODE_NAME = /code/i;

/**
 * What the one button of an interstitial says when it moves the walk on: an approving word, or one
 * that goes on to (re-)authentication ("Next", "Proceed", "Renew session", "Sign in again").
 */
export const CONTINUE = new RegExp(
  `${APPROVE.source}|\\b(proceed|next|renew|upgrade|re-?authenticate|sign[ -]?in|log[ -]?in|` +
    // German: sign in, log in, sign in again
    '(?:erneut )?anmelden|einloggen)\\b',
  'i',
);

/**
 * Class and id words that mark a message box as an error (Bootstrap's alert-danger, "error",
 * "message-negative", …), compared with each hyphen/underscore-separated part of a class.
 */
export const ERROR_BOX = /^(error|errors|danger|negative|fail|failed|failure|invalid)$/i;
/** Class words that hide an element by a style sheet (Bootstrap, Tailwind, …): a box so marked is not shown. */
export const HIDDEN_BOX = /^(d-none|hidden|hide|invisible|is-hidden|visually-hidden|sr-only)$/i;
/** Words of a message that reports an error. */
export const ERROR_WORDING = new RegExp(
  String.raw`\b(error|invalid|denied|forbidden|not (?:allowed|permitted|supported|found|valid)|unauthori[sz]ed|` +
    'fail(?:ed|ure)?|bad request|unknown|expired|missing|refused|rejected|wrong|unsupported|unable|' +
    String.raw`cannot|can't|problem|` +
    // German: error, invalid, wrong, expired, refused, unknown, failed, not found, not allowed, not possible
    'fehler|ungültig|falsch|abgelaufen|verweigert|abgelehnt|unbekannt|fehlgeschlagen|' +
    String.raw`nicht (?:gefunden|erlaubt|zulässig|möglich|unterstützt))\b`,
  'i',
);

/**
 * What account and navigation controls say: signing out, changing or switching the user, a user or account menu, the
 * way back to the portal. They are no answer to the request (never the one button of an interstitial) and never
 * evidence of an error (a "Logout" button styled btn-danger is no error box).
 */
export const ACCOUNT_CONTROL = new RegExp(
  String.raw`\b(log[ -]?out|log[ -]?off|sign[ -]?out|sign[ -]?off|change (?:the )?(?:user|account)|` +
    'switch (?:user|account)s?|use another account|not you|my account|' +
    // German: sign out, log out, switch user or account, my account
    'abmelden|ausloggen|(?:benutzer|konto) wechseln|mein konto|' +
    String.raw`(?:back to|go to) (?:the )?(?:home(?: ?page)?|portal))\b` +
    // a menu's name may run into what the button shows ("User menu" + "alice" read as one text)
    String.raw`|\b(?:user|account|main) menu`,
  'i',
);

/** Whether a text is only the label of an account or navigation control ("Logout", "Change user"). */
export function isAccountControl(text: string): boolean {
  const t = text.trim();
  return t !== '' && t.length <= 40 && ACCOUNT_CONTROL.test(t) && !ERROR_WORDING.test(t);
}
