/**
 * Verifying the tokens presented to this server (userinfo, introspection, revocation, token
 * exchange): only our own JWT access tokens (RFC 9068) pass. The signature must be by a key of
 * our own set, chosen by kid, under an allow-list of our own asymmetric algorithms, so `none`
 * in any spelling and HS256 signed with a public key are refused (RFC 8725 §2.1, §3.1); a token
 * naming its own key (jwk, jku, x5u, x5c) is refused before any verification (RFC 8725 §3.10);
 * then typ, iss, aud, exp and nbf; then the Store must not know it as revoked.
 *
 * The four verifier flaws sit where the check they disable would refuse the token.
 */
import {
  EmbeddedJWK,
  UnsecuredJWT,
  base64url,
  decodeJwt,
  decodeProtectedHeader,
  errors,
  jwtVerify,
  type JWTClaimVerificationOptions,
  type JWTHeaderParameters,
  type JWTPayload,
  type ProtectedHeaderParameters,
} from 'jose';
import type { ServerContext } from './context.ts';
import type { RefreshRecord } from './store/store.ts';
import { accessTokenTyp, type ActClaim } from './tokens.ts';

/** Why a presented token was refused; callers choose the response (401, active:false, …). */
export type TokenRefusal =
  | 'malformed'
  | 'embedded-key'
  | 'alg-not-allowed'
  | 'unknown-key'
  | 'bad-signature'
  | 'expired'
  | 'claims'
  | 'revoked';

export class InvalidTokenError extends Error {
  constructor(
    readonly reason: TokenRefusal,
    message: string,
  ) {
    super(message);
    this.name = 'InvalidTokenError';
  }
}

/** The claims of a verified access token (RFC 9068 §2.2, RFC 8693 §4.1). */
export interface AccessTokenClaims extends JWTPayload {
  iss: string;
  sub: string;
  client_id: string;
  scope: string;
  jti: string;
  iat: number;
  exp: number;
  act?: ActClaim;
}

export interface VerifiedAccessToken {
  claims: AccessTokenClaims;
  /** The grant the token belongs to, when the Store knows it (revoked together). */
  grantId?: string;
}

export type VerifierContext = Pick<ServerContext, 'issuer' | 'keys' | 'flaws' | 'store' | 'now'> &
  Partial<Pick<ServerContext, 'security'>>;

/** Header members that name a key of the token's own choosing (RFC 8725 §3.10). */
const EMBEDDED_KEY_HEADERS = ['jwk', 'jku', 'x5u', 'x5c'] as const;

/** Seconds of clock skew tolerated for exp and nbf. */
export const CLOCK_TOLERANCE = 5;

/** Verifies a presented JWT access token of this server, or throws an InvalidTokenError. */
export async function verifyPresentedAccessToken(server: VerifierContext, token: string): Promise<VerifiedAccessToken> {
  const header = readHeader(token);
  refuseEmbeddedKeys(server, header);
  const payload = await verifySignatureAndClaims(server, token, header);
  const claims = accessTokenClaims(payload);
  const stored = await server.store.findAccessToken(claims.jti);
  // An unknown jti is not revoked: the tokens are self-contained (RFC 9068) and the Store
  // keeps every revocation for as long as the token could live.
  if (stored?.revoked) throw new InvalidTokenError('revoked', 'the token has been revoked');
  return stored?.record.grantId === undefined ? { claims } : { claims, grantId: stored.record.grantId };
}

/**
 * What a token presented to introspection or revocation is: one of our access tokens or an
 * active-or-not refresh token. The hint only picks which is tried first (RFC 7009 §2.1,
 * RFC 7662 §2.1).
 */
export type PresentedToken =
  | { kind: 'access_token'; token: VerifiedAccessToken }
  | { kind: 'refresh_token'; record: RefreshRecord; active: boolean };

export async function findPresentedToken(
  server: VerifierContext,
  token: string,
  hint: string | undefined,
): Promise<PresentedToken | undefined> {
  const asAccess = async (): Promise<PresentedToken | undefined> => {
    try {
      return { kind: 'access_token', token: await verifyPresentedAccessToken(server, token) };
    } catch (err) {
      if (err instanceof InvalidTokenError) return undefined;
      throw err;
    }
  };
  const asRefresh = async (): Promise<PresentedToken | undefined> => {
    const stored = await server.store.findRefresh(token);
    return stored && { kind: 'refresh_token', record: stored.record, active: stored.state === 'active' };
  };
  const order = hint === 'refresh_token' ? [asRefresh, asAccess] : [asAccess, asRefresh];
  for (const attempt of order) {
    const found = await attempt();
    if (found) return found;
  }
  return undefined;
}

/** What token exchange needs of its subject: whose it is, what it may do, who acted before. */
export type SubjectClaims = Pick<AccessTokenClaims, 'sub' | 'scope' | 'act'>;

/**
 * The claims of a token read without any verification, for the flaw that skips it on purpose
 * (exchange-subject-unverified). Throws an InvalidTokenError only when it is no JWT with a sub.
 */
export function readUnverifiedSubject(token: string): SubjectClaims {
  let payload: JWTPayload;
  try {
    payload = decodeJwt(token);
  } catch {
    throw new InvalidTokenError('malformed', 'the token is not a JWT');
  }
  if (typeof payload.sub !== 'string') throw new InvalidTokenError('claims', 'the token has no sub');
  return {
    sub: payload.sub,
    scope: typeof payload.scope === 'string' ? payload.scope : '',
    ...(isActClaim(payload.act) ? { act: payload.act } : {}),
  };
}

function readHeader(token: string): ProtectedHeaderParameters {
  // A JWS in compact serialization has three parts; five would be a JWE (not ours).
  if (token.split('.').length !== 3) throw new InvalidTokenError('malformed', 'the token is not a signed JWT');
  try {
    return decodeProtectedHeader(token);
  } catch {
    throw new InvalidTokenError('malformed', 'the token header cannot be decoded');
  }
}

/** RFC 8725 §3.10: keys come from our own key set only; nothing is ever fetched. */
function refuseEmbeddedKeys(server: VerifierContext, header: ProtectedHeaderParameters): void {
  for (const name of EMBEDDED_KEY_HEADERS) {
    if (header[name] === undefined) continue;
    // The flaw trusts an inline jwk; jku, x5u and x5c stay refused, since nothing is fetched.
    if (name === 'jwk' && server.flaws.has('trusts-embedded-jwk')) continue;
    throw new InvalidTokenError('embedded-key', `the token header names its own key (${name})`);
  }
}

async function verifySignatureAndClaims(
  server: VerifierContext,
  token: string,
  header: ProtectedHeaderParameters,
): Promise<JWTPayload> {
  const { flaws, keys } = server;
  const claims: JWTClaimVerificationOptions = {
    issuer: server.issuer,
    // RFC 9068 §3: our access tokens are for this server, or for a resource (RFC 8707) we know.
    audience: [server.issuer, ...(server.security?.resources ?? [])],
    typ: accessTokenTyp(flaws),
    currentDate: new Date(server.now()),
    clockTolerance: CLOCK_TOLERANCE,
    requiredClaims: ['sub', 'client_id', 'scope', 'jti', 'iat', 'exp'],
  };
  try {
    if (isNone(header.alg) && flaws.has('alg-none-accepted')) return asUnsecured(token, header, claims);
    if (flaws.has('signature-unchecked')) return asUnsecured(token, header, claims);
    if (header.alg === 'HS256' && flaws.has('hs256-key-confusion'))
      return await verifyWithPublicKeyAsSecret(server, token, header, claims);
    if (header.jwk !== undefined && flaws.has('trusts-embedded-jwk')) {
      return (await jwtVerify(token, EmbeddedJWK, { ...claims, algorithms: keys.algorithms })).payload;
    }
    const verified = await jwtVerify(token, (h: JWTHeaderParameters) => ownPublicKey(server, h), {
      ...claims,
      // The allow-list: our own asymmetric algorithms; never none, never HS*.
      algorithms: keys.algorithms,
    });
    return verified.payload;
  } catch (err) {
    throw refusal(err);
  }
}

/** The public key of ours that the header names by kid, if it is of the header's alg. */
function ownPublicKey(server: VerifierContext, header: JWTHeaderParameters) {
  const key = header.kid === undefined ? undefined : server.keys.find(header.kid);
  if (!key || key.alg !== header.alg)
    throw new InvalidTokenError('unknown-key', 'the token names no key of this server');
  return key.publicKey;
}

const isNone = (alg: unknown) => typeof alg === 'string' && alg.toLowerCase() === 'none';

/**
 * Flaws alg-none-accepted and signature-unchecked: the token is read as if it were an unsecured
 * JWT (RFC 7519 §6), its signature ignored; the claims are still checked.
 */
function asUnsecured(
  token: string,
  header: ProtectedHeaderParameters,
  claims: JWTClaimVerificationOptions,
): JWTPayload {
  const [, payload = ''] = token.split('.');
  const unsecuredHeader = base64url.encode(JSON.stringify({ ...header, alg: 'none' }));
  return UnsecuredJWT.decode(`${unsecuredHeader}.${payload}.`, claims).payload;
}

/**
 * Flaw hs256-key-confusion: the public key's own text (PEM SPKI, or its JWK as JSON) is used as
 * the HMAC secret, as libraries that took "the key" without its type once did.
 */
async function verifyWithPublicKeyAsSecret(
  server: VerifierContext,
  token: string,
  header: ProtectedHeaderParameters,
  claims: JWTClaimVerificationOptions,
): Promise<JWTPayload> {
  const named = header.kid === undefined ? undefined : server.keys.find(header.kid);
  const candidates = named ? [named] : server.keys.all;
  const secrets = candidates.flatMap((key) => [
    key.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    JSON.stringify(key.publicJwk),
  ]);
  let last: unknown;
  for (const secret of secrets) {
    try {
      return (await jwtVerify(token, new TextEncoder().encode(secret), { ...claims, algorithms: ['HS256'] })).payload;
    } catch (err) {
      last = err;
    }
  }
  throw last;
}

/** Maps what jose (or the key resolver) threw to a refusal. */
function refusal(err: unknown): InvalidTokenError {
  if (err instanceof InvalidTokenError) return err;
  if (err instanceof errors.JWTExpired) return new InvalidTokenError('expired', 'the token has expired');
  if (err instanceof errors.JWTClaimValidationFailed) {
    return new InvalidTokenError('claims', `the token's ${err.claim} claim is not acceptable (${err.reason})`);
  }
  if (err instanceof errors.JOSEAlgNotAllowed)
    return new InvalidTokenError('alg-not-allowed', "the token's algorithm is not allowed");
  if (err instanceof errors.JWSSignatureVerificationFailed)
    return new InvalidTokenError('bad-signature', "the token's signature is invalid");
  return new InvalidTokenError('malformed', 'the token is malformed');
}

/** The claim types our access tokens always have; anything else is not one of ours. */
function accessTokenClaims(payload: JWTPayload): AccessTokenClaims {
  const { iss, sub, client_id, scope, jti, iat, exp, act } = payload;
  const ok =
    typeof iss === 'string' &&
    typeof sub === 'string' &&
    typeof client_id === 'string' &&
    typeof scope === 'string' &&
    typeof jti === 'string' &&
    typeof iat === 'number' &&
    typeof exp === 'number' &&
    (act === undefined || isActClaim(act));
  if (!ok) throw new InvalidTokenError('claims', 'the token is not an access token of this server');
  // The same members, in the same order: the payload, its claims read as the types they were checked to have.
  return { ...payload, iss, sub, client_id, scope, jti, iat, exp, ...(act === undefined ? {} : { act }) };
}

function isActClaim(value: unknown): value is ActClaim {
  if (typeof value !== 'object' || value === null) return false;
  const sub = 'sub' in value ? value.sub : undefined;
  const act = 'act' in value ? value.act : undefined;
  return typeof sub === 'string' && (act === undefined || isActClaim(act));
}
