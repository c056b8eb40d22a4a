/**
 * Request objects passed by value (RFC 9101 §5.1, OIDC Core §6.1): a JWS signed with a key the client registered
 * (RFC 9101 §6.2; OIDC Core §6.3.2), addressed to this server (RFC 8725 §3.9) and unexpired (RFC 7519 §4.1.4). Its
 * parameters are the request's; a parameter outside it never overrides it (RFC 9101 §6.3; OIDC Core §6.1).
 * Unsigned objects (alg none) are refused: discovery lists only asymmetric algorithms. Every refusal is
 * invalid_request_object (OIDC Core §3.1.2.6), never a 500.
 */
import { createLocalJWKSet, decodeProtectedHeader, errors, jwtVerify, UnsecuredJWT, type JWTPayload } from 'jose';
import type { ServerContext } from '../context.ts';
import type { Params } from '../http/body.ts';
import { acceptedJwsAlgs } from '../http/client-assertion.ts';
import { OAuthError } from '../oauth-error.ts';
import type { RegisteredClient } from '../options.ts';

/** The longest request object read, in characters. */
const REQUEST_OBJECT_LIMIT = 16_384;
/** Clock skew tolerated for exp and nbf. */
const SKEW_SECONDS = 10;

const invalidObject = (why: string) => new OAuthError('invalid_request_object', `the request object ${why}`);

/**
 * The request's parameters with its request object applied: the object's parameters replace the query's (the
 * query keeps only what the object does not name); `request` itself is gone. Without a request object, `params`.
 */
export async function withRequestObject(
  server: ServerContext,
  client: RegisteredClient,
  params: Params,
): Promise<Params> {
  const { request, ...outside } = params;
  if (request === undefined) return params;
  // Flaw request-object-ignored: the object is dropped and the query's parameters answer.
  if (server.flaws.has('request-object-ignored')) return outside;
  if (params.request_uri !== undefined) throw invalidObject('comes with a request_uri; send one or the other');
  const claims = await verifiedClaims(server, client, request);
  // FAPI 2.0 MS §5.3.1 (the fapi2 profile): nbf at most 60 minutes past, exp at most 60 minutes after it. The flaw
  // request-object-long-lived skips both.
  if (server.options.profile === 'fapi2' && !server.flaws.has('request-object-long-lived')) {
    checkLifetime(claims, server.now());
  }
  const inside: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(claims)) {
    // The JWT's own claims are not authorization parameters (RFC 9101 §4).
    if (['iss', 'aud', 'exp', 'iat', 'nbf', 'jti', 'sub'].includes(name)) continue;
    if (name === 'request' || name === 'request_uri') throw invalidObject(`must not contain ${name}`);
    const text = typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
    // OIDC Core §6.1: claims is a JSON object inside the request object; the rest are strings.
    const parameter = name === 'claims' && isObject(value) ? JSON.stringify(value) : text;
    if (parameter === undefined) throw invalidObject(`has a ${name} that is not a string`);
    if (parameter !== '') inside[name] = parameter;
  }
  // RFC 9101 §5: client_id in the query and in the object must agree; the redirect was resolved from the query's.
  if (inside.client_id !== undefined && inside.client_id !== client.clientId)
    throw invalidObject("names another client_id than the request's");
  if (inside.redirect_uri !== undefined && inside.redirect_uri !== params.redirect_uri)
    throw invalidObject("names another redirect_uri than the request's");
  return { ...outside, ...inside };
}

async function verifiedClaims(server: ServerContext, client: RegisteredClient, request: string): Promise<JWTPayload> {
  if (request.length > REQUEST_OBJECT_LIMIT) throw invalidObject(`exceeds ${REQUEST_OBJECT_LIMIT} characters`);
  let alg: unknown;
  try {
    alg = decodeProtectedHeader(request).alg;
  } catch {
    throw invalidObject('is not a JWT');
  }
  const checks = {
    // RFC 9101 §4: iss is the client; RFC 8725 §3.9: the audience is this server.
    issuer: client.clientId,
    audience: server.issuer,
    currentDate: new Date(server.now()),
    clockTolerance: SKEW_SECONDS,
  };
  try {
    // Flaw request-object-signature-unchecked: the claims are read as if the object were unsecured.
    if (server.flaws.has('request-object-signature-unchecked')) {
      const [, payload = ''] = request.split('.');
      return UnsecuredJWT.decode(`${Buffer.from('{"alg":"none"}').toString('base64url')}.${payload}.`, checks).payload;
    }
    if (alg === 'none') throw invalidObject('is unsigned (alg none); this server takes signed request objects only');
    if (!client.jwks) throw invalidObject('is signed, but the client has registered no keys to verify it with');
    const jwks = createLocalJWKSet(client.jwks);
    return (await jwtVerify(request, jwks, { ...checks, algorithms: acceptedJwsAlgs(server) })).payload;
  } catch (err) {
    if (err instanceof OAuthError) throw err;
    throw invalidObject(reason(err));
  }
}

/** The longest a request object may live under FAPI 2.0 MS §5.3.1, in seconds (from its nbf). */
const FAPI2_LIFETIME_SECONDS = 3600;

/** FAPI 2.0 MS §5.3.1: an nbf no more than 60 minutes in the past, an exp no more than 60 minutes after it. */
function checkLifetime(claims: JWTPayload, now: number): void {
  const { nbf, exp } = claims;
  if (typeof nbf !== 'number') throw invalidObject('has no nbf claim; this server requires one');
  if (typeof exp !== 'number') throw invalidObject('has no exp claim; this server requires one');
  if (nbf < Math.floor(now / 1000) - FAPI2_LIFETIME_SECONDS)
    throw invalidObject('has an nbf more than 60 minutes in the past');
  if (exp - nbf > FAPI2_LIFETIME_SECONDS) throw invalidObject('lives longer than 60 minutes after its nbf');
}

function reason(err: unknown): string {
  if (err instanceof errors.JWTExpired) return 'has expired';
  if (err instanceof errors.JWTClaimValidationFailed) return `has a ${err.claim} claim this server does not accept`;
  if (err instanceof errors.JOSEAlgNotAllowed) return 'is signed with an algorithm this server does not accept';
  if (err instanceof errors.JWKSNoMatchingKey) return 'is signed by no registered key of the client';
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'has an invalid signature';
  return 'is malformed';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
