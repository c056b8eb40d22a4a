/**
 * The words of the reference's pages, in English and (variant locale-de) German: every title, label, button and
 * message a user reads. The OAuth error codes and the scope names stay as the protocol spells them.
 */
import type { Variants } from '../variants.ts';

export type Lang = 'en' | 'de';

/** The language of the pages a server with these variants shows. */
export function langOf(server: { readonly variants: Variants }): Lang {
  return server.variants.has('locale-de') ? 'de' : 'en';
}

const EN = {
  signIn: 'Sign in',
  toContinueTo: 'to continue to',
  username: 'Username',
  password: 'Password',
  next: 'Next',
  signedInAs: 'Signed in as',
  badLogin: 'Invalid username or password.',
  authorizeAccess: 'Authorize access',
  isAskingTo: 'is asking to:',
  allow: 'Allow',
  deny: 'Deny',
  /** The consent form's field and the values its two buttons submit. */
  decisionField: 'decision',
  approveValue: 'approve',
  denyValue: 'deny',
  deviceHint: 'Allow only if your own device shows the code',
  scopeOther: 'Access',
  errorTitle: 'Sign-in error',
  errorHeading: 'Something went wrong',
  errorText: 'The application sent an invalid sign-in request, so you have not been redirected back to it.',
  errorDocumentation: 'What this error means (RFC 6749 §4.1.2.1)',
  connectDevice: 'Connect a device',
  enterCode: 'Enter the code shown on your device.',
  code: 'Code',
  continue: 'Continue',
  deviceConnected: 'Device connected',
  isConnected: 'is now connected. You can return to your device.',
  requestDenied: 'Request denied',
  notConnected: 'was not connected. You can close this page.',
  signOut: 'Sign out',
  signOutQuestion: 'Sign out?',
  signOutText: 'An application asks to sign you out of your account here.',
  yesSignOut: 'Yes, sign out',
  noStay: 'No, stay signed in',
  signedOutTitle: 'Signed out',
  signedOutHeading: 'You are signed out',
  mayClose: 'You may close this window.',
  stillTitle: 'Still signed in',
  stillHeading: 'You are still signed in',
  signingOut: 'Signing you out',
  submitForm: 'Submit this form',
  csrf: 'The form was not sent from this sign-in page (its security token is missing or wrong). Start again.',
  scopes: {
    openid: 'Sign you in with your account',
    profile: 'Your name and profile picture',
    email: 'Your email address',
    address: 'Your postal address',
    phone: 'Your phone number',
    offline_access: 'Stay connected while you are away',
    'api:read': 'Read data through the API',
    'api:write': 'Change data through the API',
  } as Record<string, string>,
};

const DE: typeof EN = {
  signIn: 'Anmelden',
  toContinueTo: 'weiter zu',
  username: 'Benutzername',
  password: 'Passwort',
  next: 'Weiter',
  signedInAs: 'Angemeldet als',
  badLogin: 'Benutzername oder Passwort ist ungültig.',
  authorizeAccess: 'Zugriff gewähren',
  isAskingTo: 'bittet um Zugriff auf:',
  allow: 'Zulassen',
  deny: 'Ablehnen',
  decisionField: 'entscheidung',
  approveValue: 'zulassen',
  denyValue: 'ablehnen',
  deviceHint: 'Lassen Sie den Zugriff nur zu, wenn Ihr eigenes Gerät diesen Code zeigt:',
  scopeOther: 'Zugriff',
  errorTitle: 'Anmeldefehler',
  errorHeading: 'Es ist ein Fehler aufgetreten',
  errorText: 'Die Anwendung hat eine ungültige Anmeldeanfrage gesendet; Sie wurden daher nicht zu ihr zurückgeleitet.',
  errorDocumentation: 'Was dieser Fehler bedeutet (RFC 6749 §4.1.2.1)',
  connectDevice: 'Gerät verbinden',
  enterCode: 'Geben Sie den Code ein, den Ihr Gerät anzeigt.',
  code: 'Code',
  continue: 'Weiter',
  deviceConnected: 'Gerät verbunden',
  isConnected: 'ist jetzt verbunden. Sie können zu Ihrem Gerät zurückkehren.',
  requestDenied: 'Anfrage abgelehnt',
  notConnected: 'wurde nicht verbunden. Sie können diese Seite schließen.',
  signOut: 'Abmelden',
  signOutQuestion: 'Abmelden?',
  signOutText: 'Eine Anwendung möchte Sie hier von Ihrem Konto abmelden.',
  yesSignOut: 'Ja, abmelden',
  noStay: 'Nein, angemeldet bleiben',
  signedOutTitle: 'Abgemeldet',
  signedOutHeading: 'Sie sind abgemeldet',
  mayClose: 'Sie können dieses Fenster schließen.',
  stillTitle: 'Weiterhin angemeldet',
  stillHeading: 'Sie sind weiterhin angemeldet',
  signingOut: 'Sie werden abgemeldet',
  submitForm: 'Formular absenden',
  csrf: 'Das Formular wurde nicht von dieser Anmeldeseite gesendet (sein Sicherheitstoken fehlt oder ist falsch).',
  scopes: {
    openid: 'Sie mit Ihrem Konto anmelden',
    profile: 'Ihr Name und Ihr Profilbild',
    email: 'Ihre E-Mail-Adresse',
    address: 'Ihre Postanschrift',
    phone: 'Ihre Telefonnummer',
    offline_access: 'Verbunden bleiben, während Sie abwesend sind',
    'api:read': 'Daten über die API lesen',
    'api:write': 'Daten über die API ändern',
  },
};

export type Words = typeof EN;

export function words(lang: Lang = 'en'): Words {
  return lang === 'de' ? DE : EN;
}

/** The consent decision a form POST carries, in the words of the pages' language; undefined when it carries none. */
export function decisionOf(params: Readonly<Record<string, string>>, lang: Lang): 'approve' | 'deny' | undefined {
  const t = words(lang);
  const value = params[t.decisionField];
  return value === t.approveValue ? 'approve' : value === t.denyValue ? 'deny' : undefined;
}
