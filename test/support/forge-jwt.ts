/**
 * JWT forgeries as an attacker makes them, from a real token and the public JWKS: alg none,
 * HS256 keyed with the public key, stripped or mismatched signatures, tokens signed by the
 * attacker's own key that name it (jwk) or point at it (jku, x5u), or name an unknown kid.
 */
import { createHmac, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { SignJWT, type JWK, type JWTPayload } from 'jose';

export interface Decoded {
  header: Record<string, unknown>;
  payload: JWTPayload;
  signature: string;
}

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const decodePart = (part: string | undefined) =>
  JSON.parse(Buffer.from(part ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;

export function decode(token: string): Decoded {
  const [header, payload, signature = ''] = token.split('.');
  return { header: decodePart(header), payload: decodePart(payload) as JWTPayload, signature };
}

/** The token with `alg` set to a spelling of none and an empty signature. */
export function algNone(token: string, alg = 'none', changes: JWTPayload = {}): string {
  const { header, payload } = decode(token);
  return `${encode({ ...header, alg })}.${encode({ ...payload, ...changes })}.`;
}

/** Re-signed HS256 with `secret` (the public key's text, in the key-confusion attack). */
export function hs256(token: string, secret: string, changes: JWTPayload = {}): string {
  const { header, payload } = decode(token);
  const input = `${encode({ ...header, alg: 'HS256' })}.${encode({ ...payload, ...changes })}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

/** Header and payload unchanged, signature removed. */
export function stripSignature(token: string): string {
  const [header, payload] = token.split('.');
  return `${header}.${payload}.`;
}

/** A changed payload under the original header and signature. */
export function tamperPayload(token: string, changes: JWTPayload): string {
  const [header, , signature] = token.split('.');
  return `${header}.${encode({ ...decode(token).payload, ...changes })}.${signature}`;
}

/** The public key of a JWKS entry as PEM SPKI text: what key-confusion uses as the secret. */
export const pemOf = (jwk: JWK) =>
  createPublicKey({ key: jwk as never, format: 'jwk' })
    .export({ type: 'spki', format: 'pem' })
    .toString();

export interface Attacker {
  privateKey: KeyObject;
  publicJwk: JWK;
  /** Signs `payload` RS256 with the attacker's key under `header` (typ at+jwt unless given). */
  sign(payload: JWTPayload, header?: Record<string, unknown>): Promise<string>;
}

let theAttacker: Attacker | undefined;

/** The attacker and their RSA key (one per test process: generating keys is slow). */
export function attacker(): Attacker {
  theAttacker ??= newAttacker();
  return theAttacker;
}

function newAttacker(): Attacker {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const publicJwk = publicKey.export({ format: 'jwk' }) as JWK;
  return {
    privateKey,
    publicJwk,
    sign: (payload, header = {}) =>
      new SignJWT(payload)
        .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: 'attacker-key', ...header })
        .sign(privateKey),
  };
}

/** Every forgery the verifier must refuse, by name, with the reason it must give. */
export const FORGERIES = {
  'alg none': 'alg-not-allowed',
  'alg None': 'alg-not-allowed',
  'alg NONE': 'alg-not-allowed',
  'alg nOnE': 'alg-not-allowed',
  'HS256 keyed with the PEM public key': 'alg-not-allowed',
  'HS256 keyed with the JWK JSON': 'alg-not-allowed',
  'stripped signature': 'bad-signature',
  'changed payload, original signature': 'bad-signature',
  'attacker key with our kid': 'bad-signature',
  'attacker key in its own jwk header': 'embedded-key',
  'attacker key behind a jku header': 'embedded-key',
  'attacker key behind an x5u header': 'embedded-key',
  'attacker certificate in an x5c header': 'embedded-key',
  'unknown kid': 'unknown-key',
  expired: 'expired',
  'another issuer': 'claims',
  'another audience': 'claims',
  'not yet valid (nbf)': 'claims',
  'an ID token': 'claims',
  'not a JWT': 'malformed',
} as const satisfies Record<string, string>;

export type ForgeryName = keyof typeof FORGERIES;
export const FORGERY_NAMES = Object.keys(FORGERIES) as ForgeryName[];

export interface ForgeryInputs {
  /** A genuine access token of the server. */
  accessToken: string;
  /** A genuine ID token of the server. */
  idToken: string;
  /** The server's public JWKS, as fetched. */
  jwks: { keys: JWK[] };
  /** Signs with the server's own current key: tokens whose only fault is a claim. */
  signAsServer(payload: JWTPayload): Promise<string>;
}

export async function forgeries(input: ForgeryInputs): Promise<Record<ForgeryName, string>> {
  const { accessToken, jwks, signAsServer } = input;
  const serverJwk = jwks.keys[0];
  if (!serverJwk) throw new Error('the JWKS is empty');
  const { header, payload } = decode(accessToken);
  const wider = { scope: `${String(payload.scope)} api:write` };
  const evil = attacker();
  const now = Math.floor(Date.now() / 1000);
  return {
    'alg none': algNone(accessToken, 'none'),
    'alg None': algNone(accessToken, 'None'),
    'alg NONE': algNone(accessToken, 'NONE'),
    'alg nOnE': algNone(accessToken, 'nOnE'),
    'HS256 keyed with the PEM public key': hs256(accessToken, pemOf(serverJwk)),
    'HS256 keyed with the JWK JSON': hs256(accessToken, JSON.stringify(serverJwk)),
    'stripped signature': stripSignature(accessToken),
    'changed payload, original signature': tamperPayload(accessToken, wider),
    'attacker key with our kid': await evil.sign(payload, { kid: header.kid }),
    'attacker key in its own jwk header': await evil.sign(payload, { jwk: evil.publicJwk }),
    'attacker key behind a jku header': await evil.sign(payload, { jku: 'https://attacker.example/jwks.json' }),
    'attacker key behind an x5u header': await evil.sign(payload, { x5u: 'https://attacker.example/cert.pem' }),
    'attacker certificate in an x5c header': await evil.sign(payload, { x5c: ['MIIBfake'] }),
    'unknown kid': await evil.sign(payload),
    expired: await signAsServer({ ...payload, iat: now - 7200, exp: now - 3600 }),
    'another issuer': await signAsServer({ ...payload, iss: 'https://evil.example' }),
    'another audience': await signAsServer({ ...payload, aud: 'https://api.other.example' }),
    'not yet valid (nbf)': await signAsServer({ ...payload, nbf: now + 3600 }),
    'an ID token': input.idToken,
    'not a JWT': 'not-a-jwt',
  };
}
