/**
 * DPoP (RFC 9449): checking proofs (§4.3), binding what the token endpoint issues to the proof's
 * key (§5: token_type DPoP, cnf.jkt, a public client's refresh token), and DPoP-bound tokens at
 * a protected resource (§7: the DPoP scheme with a proof carrying ath; never as Bearer, §7.2).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context } from 'koa';
import { EmbeddedJWK, calculateJwkThumbprint, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { accessTokenHash } from '../../protocol/token-hash.ts';
import type { ServerContext } from '../context.ts';
import { OAuthError } from '../oauth-error.ts';

/** Proof algorithms this server accepts and advertises (dpop_signing_alg_values_supported). */
export const DPOP_ALGS = ['ES256', 'PS256', 'RS256', 'EdDSA'];

/** A proof is accepted this long after its iat (§11.1: a brief window), and this far ahead of our clock. */
const MAX_AGE_SECONDS = 60;
const MAX_FUTURE_SECONDS = 10;

/** What the current token request is bound to: set by the token endpoint around the grant's handler. */
export interface TokenRequestBinding {
  /** The DPoP proof key's thumbprint (RFC 7638). */
  jkt?: string;
  /** The resource indicator (RFC 8707) the access token is restricted to. */
  resource?: string;
}

export const tokenRequestBinding = new AsyncLocalStorage<TokenRequestBinding>();

/** The binding of the token request being handled (empty outside one). */
export const currentBinding = (): TokenRequestBinding => tokenRequestBinding.getStore() ?? {};

interface ProofCheck {
  method: string;
  /** The request URL without query and fragment (§4.3 point 9). */
  url: string;
  /** At a resource: the access token whose hash ath must carry (§4.3 point 12). */
  accessToken?: string;
}

/** Why a proof is refused: RFC 9449 §5 (token endpoint) and §7.1 (resource) name invalid_dpop_proof. */
export class InvalidProofError extends Error {}

/** The DPoP header's proof, if any: exactly one (§4.3 point 1). */
export function proofHeader(ctx: Context): string | undefined {
  const value = ctx.get('dpop');
  if (value === '') return undefined;
  if (value.includes(',')) throw new InvalidProofError('more than one DPoP header');
  return value.trim();
}

/** Checks a proof (§4.3) and returns its key's thumbprint. */
export async function checkProof(server: ServerContext, proof: string, check: ProofCheck): Promise<string> {
  const { flaws } = server;
  let header;
  try {
    header = decodeProtectedHeader(proof);
  } catch {
    throw new InvalidProofError('the DPoP proof is not a JWT');
  }
  const jwk = header.jwk;
  if (!jwk || typeof jwk !== 'object') throw new InvalidProofError('the DPoP proof has no jwk header');
  if ('d' in jwk || 'p' in jwk || 'k' in jwk) throw new InvalidProofError("the DPoP proof's jwk holds a private key");
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(proof, EmbeddedJWK, {
      typ: 'dpop+jwt',
      algorithms: DPOP_ALGS,
      currentDate: new Date(server.now()),
    }));
  } catch {
    throw new InvalidProofError("the DPoP proof's type, algorithm or signature is not acceptable");
  }
  const { jti, htm, htu, iat } = payload;
  if (
    typeof jti !== 'string' ||
    jti === '' ||
    typeof htm !== 'string' ||
    typeof htu !== 'string' ||
    typeof iat !== 'number'
  ) {
    throw new InvalidProofError('the DPoP proof lacks jti, htm, htu or iat');
  }
  // Flaw dpop-htu-unchecked: the proof is not tied to this request (at the token endpoint).
  const atTokenEndpoint = check.accessToken === undefined;
  if (!(atTokenEndpoint && flaws.has('dpop-htu-unchecked'))) {
    if (htm !== check.method) throw new InvalidProofError("the DPoP proof's htm is not this request's method");
    if (normalized(htu) !== normalized(check.url))
      throw new InvalidProofError("the DPoP proof's htu is not this request's URL");
  }
  const now = Math.floor(server.now() / 1000);
  if (iat < now - MAX_AGE_SECONDS || iat > now + MAX_FUTURE_SECONDS)
    throw new InvalidProofError("the DPoP proof's iat is outside the accepted window");
  if (check.accessToken !== undefined) {
    if (payload.ath !== accessTokenHash(check.accessToken))
      throw new InvalidProofError("the DPoP proof's ath does not match the access token");
  }
  const jkt = await calculateJwkThumbprint(jwk, 'sha256');
  // §11.1: a proof is used once; its jti is remembered for as long as it would be accepted.
  const first = await server.store.markOnce(
    'dpop',
    `${jkt} ${jti}`,
    (iat + MAX_AGE_SECONDS + MAX_FUTURE_SECONDS) * 1000,
  );
  if (!first) throw new InvalidProofError('the DPoP proof has been used before (its jti was seen)');
  return jkt;
}

/** htu compared without query and fragment, scheme and host case-insensitively (§4.3 point 9). */
function normalized(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return url;
  }
}

/** At the token endpoint: the proof's jkt, or undefined without a proof (an error where DPoP is required). */
export async function tokenEndpointProof(ctx: Context, server: ServerContext): Promise<string | undefined> {
  try {
    const proof = proofHeader(ctx);
    if (proof === undefined) {
      if (server.security.dpopRequired)
        throw new InvalidProofError('this server issues only DPoP-bound tokens: send a DPoP proof');
      return undefined;
    }
    return await checkProof(server, proof, { method: ctx.method, url: server.url('/token') });
  } catch (err) {
    if (err instanceof InvalidProofError) throw new OAuthError('invalid_dpop_proof', err.message);
    throw err;
  }
}

/**
 * At the PAR endpoint (RFC 9449 §10.1): a DPoP header is checked as at the token endpoint and binds the code as if its
 * key's thumbprint were the dpop_jkt; a dpop_jkt sent with it must name the same key. The thumbprint, or undefined.
 */
export async function pushedRequestJkt(
  ctx: Context,
  server: ServerContext,
  dpopJkt: string | undefined,
): Promise<string | undefined> {
  let jkt: string | undefined;
  try {
    const proof = proofHeader(ctx);
    if (proof === undefined) return dpopJkt;
    jkt = await checkProof(server, proof, { method: ctx.method, url: server.url('/par') });
  } catch (err) {
    if (err instanceof InvalidProofError) throw new OAuthError('invalid_dpop_proof', err.message);
    throw err;
  }
  if (dpopJkt !== undefined && dpopJkt !== jkt)
    throw new OAuthError('invalid_request', "dpop_jkt is not the thumbprint of the DPoP proof's key");
  return jkt;
}

/** RFC 9449 §7.1: the DPoP challenge of a protected resource. */
export function dpopError(
  error: 'invalid_token' | 'invalid_dpop_proof' | 'invalid_request',
  description: string,
): OAuthError {
  return new OAuthError(error === 'invalid_dpop_proof' ? 'invalid_dpop_proof' : error, description, {
    status: error === 'invalid_request' ? 400 : 401,
    headers: {
      'WWW-Authenticate':
        `DPoP algs="${DPOP_ALGS.join(' ')}", error="${error}", ` +
        `error_description="${description.replace(/["\\]/g, "'")}"`,
    },
  });
}

/** The access token of `Authorization: DPoP <token>` (§7.1), if the request uses that scheme. */
export function dpopSchemeToken(ctx: Context): string | undefined {
  const match = /^dpop\s+(\S+)\s*$/i.exec(ctx.get('authorization').trim());
  return match?.[1];
}

/**
 * At a protected resource, after the token verified: a DPoP-bound token (cnf.jkt) needs the
 * DPoP scheme and a proof by its key (§7.1); presented as Bearer it is refused (§7.2).
 */
export async function checkSenderConstraint(
  ctx: Context,
  server: ServerContext,
  claims: JWTPayload,
  token: string,
  scheme: 'Bearer' | 'DPoP',
  url: string,
): Promise<void> {
  const { cnf } = claims;
  const jkt = typeof cnf === 'object' && cnf !== null && 'jkt' in cnf ? cnf.jkt : undefined;
  if (typeof jkt !== 'string') {
    if (scheme === 'DPoP') throw dpopError('invalid_token', 'the access token is not DPoP-bound');
    return;
  }
  if (scheme === 'Bearer') {
    if (server.flaws.has('dpop-bearer-accepted')) return;
    throw dpopError('invalid_token', 'a DPoP-bound access token must be presented with the DPoP scheme');
  }
  let proved: string;
  try {
    const proof = proofHeader(ctx);
    if (proof === undefined) throw new InvalidProofError('the DPoP scheme needs a DPoP proof');
    proved = await checkProof(server, proof, { method: ctx.method, url, accessToken: token });
  } catch (err) {
    if (err instanceof InvalidProofError) throw dpopError('invalid_dpop_proof', err.message);
    throw err;
  }
  if (proved !== jkt)
    throw dpopError('invalid_token', 'the DPoP proof is signed by another key than the token is bound to');
}
