/**
 * Request objects passed by value (RFC 9101 §4, §5.1; OIDC Core §6.1): the authorization parameters as the claims
 * of a JWT signed with the client's private key, iss = client_id, aud = the issuer, typ oauth-authz-req+jwt
 * (RFC 9101 §10.8), a short exp. Options make the wrong ones scenarios check are refused.
 */
import { randomBytes } from 'node:crypto';
import type { Client } from '../config/load.ts';
import { HarnessError } from '../model/failures.ts';
import { type Jwk, type JwsAlg, algOf, signJws, unsecuredJws } from './jws-sign.ts';
import { REQUEST_OBJECT_TYP } from '../../protocol/jwt-profiles.ts';

export interface RequestObjectOptions {
  /** The audience: the issuer identifier (RFC 9101 §4; OIDC Core §6.1). */
  audience: string;
  /** Seconds from now (negative: already expired). Default 300. */
  expiresIn?: number;
  /** "none": an unsecured request object (RFC 7519 §6). */
  alg?: 'none';
  /** Sign with this key instead of the client's own (a key the IdP does not know), under the client's kid. */
  signWith?: Jwk;
  /** Sign with this algorithm instead of the key's own (an RSA key signs RS256 or PS256). */
  signingAlg?: JwsAlg;
  /** nbf, seconds from now (none by default); iat is then no later than nbf. */
  notBeforeIn?: number;
}

/** The algorithm the client's private key signs request objects with, or undefined without a key. */
export function requestObjectAlg(client: Client): JwsAlg | undefined {
  return client.privateJwk ? algOf(client.privateJwk) : undefined;
}

export function requestObject(
  client: Client,
  parameters: Record<string, string>,
  options: RequestObjectOptions,
): string {
  if (!client.privateJwk) throw new HarnessError(`client ${client.role} has no privateJwk to sign a request object`);
  const now = Math.floor(Date.now() / 1000);
  const expiresIn = options.expiresIn ?? 300;
  const payload = {
    ...parameters,
    iss: client.clientId,
    aud: options.audience,
    jti: randomBytes(16).toString('base64url'),
    // An expired object was also issued in the past, so that only its exp is wrong.
    iat: Math.min(now, now + expiresIn - 60, now + (options.notBeforeIn ?? 0)),
    ...(options.notBeforeIn === undefined ? {} : { nbf: now + options.notBeforeIn }),
    exp: now + expiresIn,
  };
  const own = client.privateJwk;
  const header: Record<string, unknown> = {
    typ: REQUEST_OBJECT_TYP,
    ...(typeof own.kid === 'string' ? { kid: own.kid } : {}),
  };
  if (options.alg === 'none') return unsecuredJws(header, payload);
  // A foreign key signs with the client's alg, so that only the signature is wrong.
  return signJws({ ...header, alg: options.signingAlg ?? algOf(own) }, payload, options.signWith ?? own);
}
