/**
 * private_key_jwt (RFC 7523 §2.2, §3; OIDC Core §9): a client assertion signed with a key the
 * client registered. iss and sub are the client_id; aud names this server (its issuer, token
 * endpoint or PAR endpoint, RFC 9126 §2; the issuer alone under FAPI 2.0 SP §5.3.2.1); exp is
 * required and at most ten minutes away; the jti is single use (Store.markOnce) until exp.
 * Without an assertion, the secret-based methods of client-auth.ts apply.
 */
import type { Context } from 'koa';
import { createLocalJWKSet, decodeJwt, errors, jwtVerify, type JWTPayload } from 'jose';
import type { ServerContext } from '../context.ts';
import type { Params } from './body.ts';
import { type AuthenticatedClient, authenticateClient } from './client-auth.ts';
import { invalidClient, invalidRequest } from '../oauth-error.ts';
import { CLIENT_ASSERTION_TYPE } from '../../protocol/grants.ts';

export { CLIENT_ASSERTION_TYPE } from '../../protocol/grants.ts';

/** Asymmetric algorithms only: never none, never HS* (RFC 8725 §3.1). */
export const ASSERTION_ALGS = ['RS256', 'PS256', 'ES256', 'ES384', 'EdDSA'];
/** FAPI 2.0 SP §5.4.1: servers processing JWTs shall use PS256, ES256 or EdDSA (Ed25519), never RS256. */
export const FAPI2_JWS_ALGS = ['PS256', 'ES256', 'EdDSA'];

/**
 * The algorithms this server accepts for client assertions and request objects (and lists in discovery): the FAPI
 * 2.0 ones under the fapi2 profile, else ASSERTION_ALGS. The flaw fapi2-accepts-rs256 keeps ASSERTION_ALGS (RS256
 * among them) under the fapi2 profile.
 */
export function acceptedJwsAlgs(server: Pick<ServerContext, 'options' | 'flaws'>): string[] {
  const fapi2 = server.options.profile === 'fapi2' && !server.flaws.has('fapi2-accepts-rs256');
  return fapi2 ? FAPI2_JWS_ALGS : ASSERTION_ALGS;
}

/** The longest an assertion may live: its jti is remembered that long (RFC 7523 §3 point 4 lets us refuse longer). */
const MAX_LIFETIME_SECONDS = 600;
/** Clock skew tolerated for exp, nbf and iat (FAPI 2.0 SP §5.3.2.1: up to 10 s in the future). */
const SKEW_SECONDS = 10;

/**
 * Client authentication at the token and PAR endpoints: an assertion when one is sent, else the
 * secret-based methods; then the method must be one this server accepts (the fapi2 profile:
 * private_key_jwt only).
 */
export async function authenticate(ctx: Context, params: Params, server: ServerContext): Promise<AuthenticatedClient> {
  const result =
    params.client_assertion !== undefined || params.client_assertion_type !== undefined
      ? await authenticateByAssertion(ctx, params, server)
      : await authenticateClient(ctx, params, (id) => server.findClient(id), server.flaws);
  if (!server.security.authMethods.includes(result.method)) {
    throw invalidClient(`this server accepts only ${server.security.authMethods.join(', ')} client authentication`);
  }
  return result;
}

async function authenticateByAssertion(
  ctx: Context,
  params: Params,
  server: ServerContext,
): Promise<AuthenticatedClient> {
  if (ctx.get('authorization').trim() !== '' || params.client_secret !== undefined) {
    throw invalidRequest('the client used more than one authentication method');
  }
  if (params.client_assertion_type !== CLIENT_ASSERTION_TYPE)
    throw invalidClient(`client_assertion_type must be ${CLIENT_ASSERTION_TYPE}`);
  const assertion = params.client_assertion;
  if (assertion === undefined) throw invalidClient('client_assertion is missing');
  let unverified: JWTPayload;
  try {
    unverified = decodeJwt(assertion);
  } catch {
    throw invalidClient('the client assertion is not a JWT');
  }
  const clientId = params.client_id ?? (typeof unverified.sub === 'string' ? unverified.sub : undefined);
  if (clientId === undefined) throw invalidClient('the client assertion names no client');
  const client = await server.findClient(clientId);
  if (!client?.jwks) throw invalidClient('client authentication failed');
  const { flaws } = server;
  // RFC 7523 §3 points 2 and 5: sub is the client_id; no assertion is accepted before its nbf. The flaw takes one
  // without sub, and judges one at its own nbf when that is later than now.
  const timesUnchecked = flaws.has('client-assertion-times-unchecked');
  const judgedAt =
    timesUnchecked && typeof unverified.nbf === 'number' ? Math.max(server.now(), unverified.nbf * 1000) : server.now();
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(assertion, createLocalJWKSet(client.jwks), {
      algorithms: acceptedJwsAlgs(server),
      issuer: clientId,
      ...(timesUnchecked ? {} : { subject: clientId }),
      ...(flaws.has('client-assertion-aud-unchecked') ? {} : { audience: audiences(server) }),
      requiredClaims: ['jti', 'exp'],
      currentDate: new Date(judgedAt),
      clockTolerance: SKEW_SECONDS,
    }));
  } catch (err) {
    throw invalidClient(`the client assertion is not acceptable: ${reason(err)}`);
  }
  if (
    server.security.assertionAudience === 'issuer' &&
    !flaws.has('client-assertion-aud-unchecked') &&
    payload.aud !== server.issuer
  ) {
    throw invalidClient("the client assertion's aud must be the issuer identifier, as a string");
  }
  const nowSeconds = Math.floor(server.now() / 1000);
  const exp = payload.exp!;
  if (exp > nowSeconds + MAX_LIFETIME_SECONDS)
    throw invalidClient(`the client assertion lives longer than ${MAX_LIFETIME_SECONDS} seconds`);
  // RFC 7523 §3 point 6: the server may reject an iat unreasonably far in the past; here, older than the longest
  // lifetime an assertion may have.
  if (typeof payload.iat === 'number' && payload.iat < nowSeconds - MAX_LIFETIME_SECONDS && !timesUnchecked)
    throw invalidClient(`the client assertion was issued more than ${MAX_LIFETIME_SECONDS} seconds ago`);
  if (typeof payload.jti !== 'string' || payload.jti === '') throw invalidClient('the client assertion has no jti');
  // RFC 7523 §3 point 7: the jti is single use while the assertion is valid.
  if (!flaws.has('client-assertion-replay')) {
    const first = await server.store.markOnce(
      'client_assertion',
      `${clientId} ${payload.jti}`,
      (exp + SKEW_SECONDS) * 1000,
    );
    if (!first) throw invalidClient('the client assertion has been used before (its jti was seen)');
  }
  return { client, method: 'private_key_jwt' };
}

/** RFC 7523 §3 point 3 and RFC 9126 §2: the issuer, the token endpoint or the PAR endpoint. */
function audiences(server: ServerContext): string[] {
  return server.security.assertionAudience === 'issuer'
    ? [server.issuer]
    : [server.issuer, server.url('/token'), server.url('/par')];
}

function reason(err: unknown): string {
  if (err instanceof errors.JWTExpired) return 'it has expired';
  if (err instanceof errors.JWTClaimValidationFailed) return `its ${err.claim} claim is wrong`;
  if (err instanceof errors.JOSEAlgNotAllowed) return 'its algorithm is not allowed';
  if (err instanceof errors.JWKSNoMatchingKey) return 'it is signed by no registered key of the client';
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'its signature is invalid';
  return 'it is malformed';
}
