/**
 * The forms a secret takes in text, for the redactor (redact.ts): form- and HTML-encoded, URI
 * decoding that never throws, JWTs found in text (their shape, the limits on decoding them, a
 * segment decoded), and the rolling hash its linear scan for known values runs on.
 */
import { boundedJson, MIN_SECRET_LENGTH } from './fields.ts';

export function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}

export function htmlEscape(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Polynomial hash (base 31, 32-bit) of the MIN_SECRET_LENGTH characters of `text` from `at`. */
const BASE = 31;
const TOP = (() => {
  let p = 1;
  for (let k = 1; k < MIN_SECRET_LENGTH; k++) p = Math.imul(p, BASE);
  return p;
})();
export function windowHash(text: string, at: number): number {
  let h = 0;
  for (let k = 0; k < MIN_SECRET_LENGTH; k++) h = (Math.imul(h, BASE) + text.charCodeAt(at + k)) | 0;
  return h;
}
/** The hash of the window one character further: `out` leaves it, `next` enters. */
export function rollHash(h: number, out: number, next: number): number {
  return (Math.imul((h - Math.imul(out, TOP)) | 0, BASE) + next) | 0;
}

/** A compact JWS: three base64url segments, the last possibly empty (an unsecured JWT). */
export const JWS_SHAPE = /^([\w-]+)\.([\w-]+)\.([\w-]*)$/;
/** A JWT in text: its header is a JSON object, so it starts with eyJ (base64url of `{"`). */
export const JWT_IN_TEXT = /(?<![\w.-])(eyJ[\w-]*)\.([\w-]+)\.([\w-]*)(?![\w.-])/g;
/** Shorter signatures are not masked as such (an HMAC's is 43 characters or more). */
export const MIN_SIGNATURE_LENGTH = 16;
/** The characters at each end of a signature by which a near copy is recognised. */
export const SIGNATURE_PROBE = 16;
/** How deep JWTs inside JWTs are decoded. */
export const MAX_JWT_NESTING = 3;
/**
 * A JWT longer than this is left to redaction by value: beyond any body the harness reads (limits.maxBodyBytes is
 * 5 MiB by default), so a very large token is decoded too.
 */
export const MAX_JWT_CHARS = 16 * 1024 * 1024;
/** Structures the harness built that one run's redactor keeps (built.ts); later ones are redacted as any JWT. */
export const MAX_BUILT = 100_000;
/** How deep built structures inside built structures are shown decoded. */
export const MAX_BUILT_NESTING = 8;
/**
 * JWTs decoded in one text: the harness's own requests carry a few; a response body of 50,000 small JWTs would
 * otherwise cost seconds at each redaction. Those past it are redacted by value only.
 */
export const MAX_JWTS_PER_TEXT = 1_000;

/** A base64url segment decoded as a JSON object or array (bounded), else undefined. */
export function decodeSegment(segment: string): unknown {
  const json = boundedJson(Buffer.from(segment, 'base64url').toString('utf8'));
  return json !== null && typeof json === 'object' ? json : undefined;
}

/** A compact JWS whose header and payload decode to JSON: a JWT. */
export function decodableJwt(value: string): boolean {
  const m = JWS_SHAPE.exec(value);
  return !!m && value.length >= 24 && decodeSegment(m[1]!) !== undefined && decodeSegment(m[2]!) !== undefined;
}

/**
 * What `bytes` look like inside base64 or base64url text, whatever precedes them: at each of the three alignments, the
 * characters that stand for its bytes alone (the groups shared with what surrounds it left out); the base64 ones also
 * percent-encoded.
 */
export function encodedForms(bytes: Buffer): string[] {
  const forms = new Set<string>();
  for (let k = 0; k < 3; k++) {
    const shifted = Buffer.concat([Buffer.alloc(k), bytes]);
    for (const encoding of ['base64', 'base64url'] as const) {
      const text = shifted.toString(encoding).replace(/=+$/, '');
      const middle = text.slice(k ? 4 : 0, text.length - 4);
      if (middle.length < 16) continue;
      forms.add(middle);
      forms.add(encodeURIComponent(middle));
    }
  }
  return [...forms];
}

export function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
