/**
 * What an exchange teaches the redactor (redact.ts): the client secret of a Basic header the harness sent, and what
 * the target sent — tokens and codes in the response body (JSON members named like a credential, a private JWK's
 * members, form fields), the Location's query and fragment, Set-Cookie values. The redactor decides what a value
 * found here becomes (its budget per response, an echo of the request is not learned).
 */
import { privateJwkStrings } from '../../protocol/jwk.ts';
import { decodeURIComponentSafe } from './encodings.ts';
import { PRIVATE_JWK_MEMBERS, SECRET_FIELDS, boundedJson, isJwk, secretMember } from './fields.ts';
import type { HttpEvidence } from '../model/results.ts';

/** Where a value found goes: the value and the kind its label names. */
export type Learn = (value: string, kind: string) => void;

/** The client secret of a Basic authorization header (decoded, and the credentials as sent). */
export function observeBasicSecret(headers: Record<string, string>, add: Learn): void {
  const auth = headers.authorization;
  if (!auth) return;
  const [scheme, credentials = ''] = auth.split(/\s+/, 2);
  if (/^basic$/i.test(scheme ?? '')) {
    const decoded = Buffer.from(credentials, 'base64').toString();
    const secret = decoded.slice(decoded.indexOf(':') + 1);
    if (secret) add(decodeURIComponentSafe(secret.replace(/\+/g, ' ')), 'client_secret');
    add(credentials, 'client_secret');
  }
}

/** The secrets in a response: its body, its Location (resolved against the request's URL), its Set-Cookie. */
export function observeResponse(
  response: NonNullable<HttpEvidence['response']>,
  requestUrl: string,
  learn: Learn,
): void {
  observeBody(response.body, learn);
  const location = response.headers.location;
  if (location) observeUrl(location, requestUrl, learn);
  const cookies = response.headers['set-cookie'];
  if (cookies) for (const c of cookies.split(/,(?=\s*[^;,=\s]+=)/)) observeCookie(c, learn);
}

/** The secret fields of a form or query (an authorization response's code, tokens). */
export function observeFields(params: Iterable<[string, string]>, learn: Learn): void {
  for (const [k, v] of params) if (SECRET_FIELDS.has(k) && v) learn(v, k);
}

function observeCookie(cookie: string, learn: Learn): void {
  const value = cookie.split(';')[0]?.split('=').slice(1).join('=').trim();
  if (value) learn(value, 'cookie');
}

function observeUrl(url: string, base: string, learn: Learn): void {
  try {
    const u = new URL(url, base);
    observeFields(u.searchParams, learn);
    observeFields(new URLSearchParams(u.hash.slice(1)), learn);
  } catch {
    // not a URL: nothing to learn
  }
}

function observeBody(body: string | undefined, learn: Learn): void {
  if (!body) return;
  const json = boundedJson(body);
  if (json !== undefined) {
    observeJson(json, learn);
  } else if (/^[\w.%+~-]+=[^<>\s]*(&|$)/.test(body)) {
    observeFields(new URLSearchParams(body), learn);
  }
}

function observeJson(value: unknown, learn: Learn): void {
  if (Array.isArray(value)) for (const v of value) observeJson(v, learn);
  else if (value && typeof value === 'object') {
    const jwk = isJwk(value);
    if (jwk) for (const secret of privateJwkStrings(value)) learn(secret, 'private_key');
    for (const [k, v] of Object.entries(value)) {
      if (typeof v === 'string' && secretMember(k, v)) learn(v, k);
      else if (!(jwk && PRIVATE_JWK_MEMBERS.has(k))) observeJson(v, learn);
    }
  }
}
