/**
 * at_hash and c_hash (OIDC Core §3.1.3.6, §3.3.2.11): the base64url encoding of the left-most half
 * of the hash of the token's octets, with the hash named by the ID token's JWS `alg`.
 */
import { createHash } from 'node:crypto';
import { hashOfAlg, type JwsAlg } from './jws.ts';

/**
 * The at_hash / c_hash of `token` for an ID token signed with `alg`; undefined when `alg` names no
 * hash (none, or a name outside the JWS table), where the claim is not defined.
 *
 * The spec hashes "the octets of the ASCII representation". Tokens are ASCII (RFC 6749 §A.12,
 * §A.11), where ASCII and UTF-8 give the same octets; UTF-8 keeps any other string distinct, where
 * node's 'ascii' encoding would drop the high byte of each UTF-16 unit.
 */
export function tokenHash(token: string, alg: JwsAlg): string;
export function tokenHash(token: string, alg: string): string | undefined;
export function tokenHash(token: string, alg: string): string | undefined {
  const hash = hashOfAlg(alg);
  if (hash === undefined) return undefined;
  const digest = createHash(hash).update(token, 'utf8').digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

/** A DPoP proof's ath (RFC 9449 §4.2): base64url SHA-256 of the access token's (ASCII) octets. */
export function accessTokenHash(accessToken: string): string {
  return createHash('sha256').update(accessToken, 'utf8').digest('base64url');
}
