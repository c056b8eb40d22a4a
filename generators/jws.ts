/**
 * Compact JWS (RFC 7515 §7.1) taken apart and put together again, signed synchronously with
 * node:crypto so that fast-check can `.map` over it. Shared by the JWT tamper generators.
 */
import { createHmac, sign, type KeyObject } from 'node:crypto';
import { isJwsAlg, JWS_ALGS, signatureOptions } from '../protocol/jws.ts';
import { isRecord } from '../protocol/guards.ts';

export type JsonObject = Record<string, unknown>;

export interface DecodedJws {
  header: JsonObject;
  payload: JsonObject;
  /** The three base64url segments as they were: header, payload, signature. */
  segments: [string, string, string];
}

/** Something that can sign: an asymmetric private key, or an HMAC secret for HS*. */
export interface JwsSigner {
  alg: string;
  key: KeyObject | Uint8Array;
}

export const base64url = (data: string | Uint8Array): string => Buffer.from(data).toString('base64url');
export const encodeJson = (value: unknown): string => base64url(JSON.stringify(value));

function decodeJsonObject(segment: string, what: string): JsonObject {
  const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
  if (!isRecord(value)) throw new Error(`the JWS ${what} is not a JSON object`);
  return value;
}

/** Splits a compact JWS whose header and payload are JSON objects (a JWT); throws otherwise. */
export function decodeJws(token: string): DecodedJws {
  const segments = token.split('.');
  if (segments.length !== 3) throw new Error(`a compact JWS has 3 segments, this has ${segments.length}`);
  const [header = '', payload = '', signature = ''] = segments;
  return {
    header: decodeJsonObject(header, 'header'),
    payload: decodeJsonObject(payload, 'payload'),
    segments: [header, payload, signature],
  };
}

/** The JWS signature of `header.payload` by alg (RFC 7518 §3.1): HS*, RS*, PS*, ES*, EdDSA. */
export function jwsSignature(alg: string, signingInput: string, key: KeyObject | Uint8Array): Buffer {
  const data = Buffer.from(signingInput, 'ascii');
  if (isJwsAlg(alg) && JWS_ALGS[alg].kty === 'oct') return createHmac(JWS_ALGS[alg].hash, key).update(data).digest();
  const parameters = signatureOptions(alg);
  if (!parameters) throw new Error(`cannot sign with alg ${alg}`);
  const { digest, ...options } = parameters;
  return sign(digest, data, { key: key as KeyObject, ...options });
}

/** `header.payload.signature` with a fresh signature by `signer`; header members set to undefined are dropped. */
export function signCompact(header: JsonObject, payloadSegment: string, signer: JwsSigner): string {
  const input = `${encodeJson({ ...header, alg: signer.alg })}.${payloadSegment}`;
  return `${input}.${base64url(jwsSignature(signer.alg, input, signer.key))}`;
}
