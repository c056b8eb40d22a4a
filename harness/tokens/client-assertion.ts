/**
 * private_key_jwt client assertions (RFC 7523 §2.2, §3; OIDC Core §9): a JWT signed with the
 * client's private key, iss = sub = client_id, aud = the authorization server, a fresh jti and a
 * short exp. Options make the wrong ones scenarios check are refused.
 */
import { randomBytes } from 'node:crypto';
import type { Client } from '../config/load.ts';
import { HarnessError } from '../model/failures.ts';
import { type Jwk, type JwsAlg, signJws, unsecuredJws } from './jws-sign.ts';
import { CLIENT_ASSERTION_TYPE } from '../../protocol/grants.ts';

export { CLIENT_ASSERTION_TYPE } from '../../protocol/grants.ts';

export interface ClientAssertionOptions {
  /** The audience: the issuer identifier by default (RFC 7523 §3 point 3; FAPI 2.0 SP §5.3.2.1). */
  audience: string;
  jti?: string;
  /** Seconds from now (negative: already expired). Default 60. */
  expiresIn?: number;
  /** "none": an unsecured assertion (RFC 7519 §6). */
  alg?: 'none';
  /** Sign with this key instead of the client's own (a key the IdP does not know). */
  signWith?: Jwk;
  /** nbf, seconds from now (none by default). */
  notBeforeIn?: number;
  /** iat, seconds before now (default 0). */
  issuedAgo?: number;
  /** Leave sub out (RFC 7523 §3 point 2 requires it). */
  withoutSub?: boolean;
  /** Sign with this algorithm instead of the key's own (an RSA key signs RS256 or PS256). */
  signingAlg?: JwsAlg;
}

export function clientAssertion(client: Client, options: ClientAssertionOptions): string {
  if (!client.privateJwk) throw new HarnessError(`client ${client.role} has no privateJwk for private_key_jwt`);
  const now = Math.floor(Date.now() / 1000);
  const payload = {
    iss: client.clientId,
    ...(options.withoutSub ? {} : { sub: client.clientId }),
    aud: options.audience,
    jti: options.jti ?? randomBytes(16).toString('base64url'),
    iat: now - (options.issuedAgo ?? 0),
    ...(options.notBeforeIn === undefined ? {} : { nbf: now + options.notBeforeIn }),
    exp: now + (options.expiresIn ?? 60),
  };
  const jwk = options.signWith ?? client.privateJwk;
  const header: Record<string, unknown> = {
    typ: 'JWT',
    ...(typeof jwk.kid === 'string' ? { kid: jwk.kid } : {}),
    ...(options.signingAlg === undefined ? {} : { alg: options.signingAlg }),
  };
  return options.alg === 'none' ? unsecuredJws(header, payload) : signJws(header, payload, jwk);
}

/** The form fields that carry an assertion (RFC 7521 §4.2). */
export function assertionFields(clientId: string, assertion: string): Record<string, string> {
  return { client_id: clientId, client_assertion_type: CLIENT_ASSERTION_TYPE, client_assertion: assertion };
}
