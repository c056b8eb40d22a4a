/**
 * Redaction by field name (redact.ts): the query and fragment of a URL, a form body, a JSON body's members named like
 * a credential, a private JWK's members, an HTML form's credential inputs; every other piece of text goes to the
 * redactor's by-value scan.
 */
import { decodeURIComponentSafe } from './encodings.ts';
import { HINT_FIELDS, PRIVATE_JWK_MEMBERS, SECRET_FIELDS, boundedJson, isJwk, secretMember } from './fields.ts';

/** What redaction by name asks of the redactor. */
export interface NameRedactor {
  /** Every known secret in a text replaced (by value). */
  text(input: string, depth?: number): string;
  /** The stable label of a value found in a secret field. */
  fieldLabel(value: string, kind: string): string;
  /** A configured secret too short to find in free text. */
  isShort(value: string): boolean;
  /** A structure the harness built, given as a hint, as a report shows it; else undefined. */
  builtHint(value: string, depth: number): string | undefined;
}

export function redactUrl(r: NameRedactor, url: string): string {
  const q = url.indexOf('?');
  const h = url.indexOf('#');
  if (q < 0 && h < 0) return r.text(url);
  const cut = Math.min(...[q, h].filter((i) => i >= 0));
  const params = (s: string) => (/=/.test(s) ? redactForm(r, s) : r.text(s));
  let out = r.text(url.slice(0, cut));
  if (q >= 0) out += `?${params(url.slice(q + 1, h > q ? h : undefined))}`;
  if (h >= 0) out += `#${params(url.slice(h + 1))}`;
  return out;
}

export function redactBody(r: NameRedactor, body: string): string {
  const json = boundedJson(body);
  if (json !== undefined && typeof json === 'object' && json !== null) {
    return r.text(JSON.stringify(redactJson(r, json), null, 2));
  }
  if (/^[\w.%+~-]+=[^<>\s]*(&|$)/.test(body)) return redactForm(r, body);
  return r.text(
    body.replace(
      new RegExp(
        String.raw`(<input\b[^>]{0,2000}?\bname=["']?(?:code|id_token|access_token|token)["']?` +
          String.raw`[^>]{0,2000}?\bvalue=)(["'])[^"']*\2`,
        'gi',
      ),
      '$1$2[REDACTED:form-value]$2',
    ),
  );
}

function redactForm(r: NameRedactor, form: string): string {
  return form
    .split('&')
    .map((pair) => {
      const [k = '', ...rest] = pair.split('=');
      const key = decodeURIComponentSafe(k.replace(/\+/g, ' '));
      const value = decodeURIComponentSafe(rest.join('=').replace(/\+/g, ' '));
      // A hint the harness built (a forged ID token) is shown through what it holds; any other is masked by name.
      const hint = rest.length && HINT_FIELDS.has(key) ? r.builtHint(value, 0) : undefined;
      if (hint !== undefined) return `${k}=${hint}`;
      if (rest.length && (SECRET_FIELDS.has(key) || r.isShort(value)))
        return `${k}=${r.fieldLabel(value, r.isShort(value) ? 'secret' : key)}`;
      return r.text(pair);
    })
    .join('&');
}

/** A JSON value with its credential members masked by name and every other string redacted by value. */
export function redactJson(r: NameRedactor, value: unknown, depth = 0): unknown {
  if (Array.isArray(value)) return value.map((v) => redactJson(r, v, depth));
  if (value && typeof value === 'object') {
    const jwk = isJwk(value);
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => {
        const hint = typeof v === 'string' && HINT_FIELDS.has(k) ? r.builtHint(v, depth) : undefined;
        if (hint !== undefined) return [k, hint];
        if (typeof v === 'string' && secretMember(k, v)) return [k, r.fieldLabel(v, k)];
        if (typeof v === 'string' && r.isShort(v)) return [k, r.fieldLabel(v, 'secret')];
        if (jwk && PRIVATE_JWK_MEMBERS.has(k)) return [k, replaceStrings(v, (s) => r.fieldLabel(s, 'private_key'))];
        return [k, redactJson(r, v, depth)];
      }),
    );
  }
  return typeof value === 'string' ? r.text(value, depth) : value;
}

function replaceStrings(value: unknown, replace: (s: string) => string): unknown {
  if (typeof value === 'string') return replace(value);
  if (Array.isArray(value)) return value.map((v) => replaceStrings(v, replace));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replaceStrings(v, replace)]));
  }
  return value;
}
