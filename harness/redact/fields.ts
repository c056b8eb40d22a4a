/**
 * What is secret by its name or form, for the redactor (redact.ts): the secret request and response
 * fields, the header names, a JWK's private members, the words that are secret only when the value
 * looks like a credential, the shortest value redacted by value, how many values one response may
 * teach, and the values a request carried (an echo of one in its response is not learned).
 */
import { PRIVATE_JWK_MEMBERS as PRIVATE_MEMBERS } from '../../protocol/jwk.ts';
import { parseJsonBounded } from '../model/limits.ts';
import type { HttpEvidence } from '../model/results.ts';

export const SECRET_FIELDS = new Set([
  'client_secret',
  'password',
  'code',
  'code_verifier',
  'access_token',
  'refresh_token',
  'id_token',
  'device_code',
  'user_code',
  'subject_token',
  'actor_token',
  'token',
  'assertion',
  'client_assertion',
  // RFC 7592 §3: the Bearer token of a registered client's configuration endpoint.
  'registration_access_token',
  // OIDC Core §3.1.2.1, CIBA §7.1, Back-Channel Logout §2.4: tokens the harness sends back, or receives.
  'id_token_hint',
  'login_hint_token',
  'logout_token',
]);

/** Hints: secret by name, unless the harness built the value itself (a forged ID token, shown decoded). */
export const HINT_FIELDS = new Set(['id_token_hint', 'login_hint_token']);

/**
 * Secret field names that are also ordinary words in a JSON body (`{"code": "MISSING_OR_NULL_ORIGIN"}`,
 * an error's code; `{"token": "expired"}`): there a member so named is masked only for its value —
 * one learned (a code from an authorization response, a token from a token response) or one shaped
 * like a credential (credentialShaped) — never for its name. In URLs and forms they stay secret by name.
 */
const WORD_FIELDS = new Set(['code', 'token']);

/**
 * A value that is a credential by its form: a JWT or JWE, or 16 characters or more of a token
 * alphabet (base64url, base64, hex) with a digit in it that is not words joined by `_`, `-`, `.`
 * (an error code such as ERR_TOKEN_42 or invalid-grant-2 is not one).
 */
export function credentialShaped(value: string): boolean {
  if (/^[\w-]+(\.[\w-]+){2}$|^[\w-]+(\.[\w-]*){4}$/.test(value) && value.length >= 24) return true;
  if (value.length < 16 || !/^[A-Za-z0-9+/=_.~-]+$/.test(value) || !/\d/.test(value)) return false;
  return !/^[A-Za-z]+\d*([_.-][A-Za-z]+\d*)*$/.test(value);
}

/** Whether the JSON member `name` holding the string `value` is secret by its name. */
export function secretMember(name: string, value: string): boolean {
  return SECRET_FIELDS.has(name) && (!WORD_FIELDS.has(name) || credentialShaped(value));
}
export const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);
/** Private and symmetric key members of a JWK (protocol/jwk.ts): secret only inside a JWK (an object with kty). */
export const PRIVATE_JWK_MEMBERS = new Set<string>(PRIVATE_MEMBERS);

/** Every string a JSON value holds, at any depth. */
function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(stringsIn);
  return [];
}

export const isJwk = (value: object): value is { kty: string } => 'kty' in value && typeof value.kty === 'string';

/**
 * Shorter values are only redacted by field name: replacing them everywhere would garble text (a
 * target could issue the token "failed"). The config refuses secrets shorter than this.
 */
export const MIN_SECRET_LENGTH = 8;
/**
 * At most this many new values are learned from one response: a body of a million tokens does not grow the redactor
 * without bound.
 */
export const MAX_LEARNED_PER_MESSAGE = 256;

/**
 * Every value a request carried (URL parameters, form or JSON fields): its response echoing one is not the target's
 * secret.
 */
export function requestValues(e: HttpEvidence): Set<string> {
  const out = new Set<string>();
  const addParams = (p: URLSearchParams) => {
    for (const [, v] of p) if (v.length >= MIN_SECRET_LENGTH) out.add(v);
  };
  try {
    const u = new URL(e.request.url);
    addParams(u.searchParams);
  } catch {
    // not a URL
  }
  const body = e.request.body;
  if (body) {
    const json = boundedJson(body);
    if (json !== undefined)
      for (const v of stringsIn(json)) {
        if (v.length >= MIN_SECRET_LENGTH) out.add(v);
      }
    else if (/^[\w.%+~-]+=/.test(body)) addParams(new URLSearchParams(body));
  }
  return out;
}

export const isLabel = (value: string) => /^\[REDACTED(:[\w-]+)*\]$/.test(value);

/** The text as JSON when it is an object or array no deeper than the harness reads, else undefined. */
export function boundedJson(text: string): unknown {
  const t = text.trimStart();
  if (!t.startsWith('{') && !t.startsWith('[')) return undefined;
  return parseJsonBounded(text);
}
