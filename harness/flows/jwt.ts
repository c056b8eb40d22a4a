/**
 * JWT tools for scenarios (jose): fetch the JWKS, decode without trust, and validate ID tokens per
 * the SPEC's JWT validation table (signature by a JWKS key chosen by kid, exp, iss, aud, nbf, an
 * algorithm allow-list that never admits none or symmetric algorithms, at_hash) and OIDC Core
 * §3.1.3.7. Every way a token is wrong becomes a CheckFailure naming the claim and the rule.
 */
import * as jose from 'jose';
import { ASYMMETRIC_ALGS, hashOfAlg } from '../../protocol/jws.ts';
import { tokenHash } from '../../protocol/token-hash.ts';
import type { Client } from '../config/load.ts';
import type { RequirementRef } from '../model/requirements.ts';
import { CheckFailure } from '../model/failures.ts';
import type { HttpClient } from '../http/client.ts';
import type { Target } from '../target/target.ts';
import { errorMessage } from '../../protocol/guards.ts';

/** Asymmetric JWS algorithms a verifier may accept (RFC 8725 §3.1: never none, never HS* here). */
export { ASYMMETRIC_ALGS } from '../../protocol/jws.ts';

export interface DecodedJwt {
  header: jose.ProtectedHeaderParameters;
  payload: jose.JWTPayload;
}

export interface IdTokenExpectations {
  client: Client;
  /** The nonce sent in the authorization request; must come back unchanged. */
  nonce?: string;
  /** The access token issued with it: at_hash is checked when present. */
  accessToken?: string;
  /** at_hash must be present (e.g. when the ID token comes with an access token from /auth). */
  requireAtHash?: boolean;
  /** Seconds of clock skew tolerated for exp, nbf and iat (default 60). */
  clockToleranceSec?: number;
}

/**
 * at_hash: left half of the hash (by the JWS alg's hash) of the access token, base64url (OIDC Core
 * §3.1.3.6, §3.2.2.9); undefined when the alg names no hash.
 */
export const atHash: (accessToken: string, alg: string) => string | undefined = tokenHash;

/** The hash an alg names, as the spec writes it ("SHA-256"). */
const hashName = (alg: string): string => (hashOfAlg(alg) ?? 'unknown').toUpperCase().replace('SHA', 'SHA-');

export function decodeJwt(token: string): DecodedJwt {
  try {
    return { header: jose.decodeProtectedHeader(token), payload: jose.decodeJwt(token) };
  } catch (error) {
    throw new CheckFailure(
      `The token is not a well-formed JWT (${errorMessage(error)}); RFC 7519 §7.2 requires ` +
        `header.payload.signature in base64url.`,
    );
  }
}

export class JwtTools {
  #jwks: jose.JSONWebKeySet | undefined;
  constructor(
    private readonly http: HttpClient,
    private readonly target: Target,
  ) {}

  /** The key set at jwks_uri (fetched once per scenario; `fresh` fetches it again, e.g. after a key rotation). */
  async jwks(options: { fresh?: boolean } = {}): Promise<jose.JSONWebKeySet> {
    if (this.#jwks && !options.fresh) return this.#jwks;
    const uri = this.target.endpoints.jwks;
    if (!uri)
      throw new CheckFailure(
        'The discovery document has no jwks_uri; OIDC Discovery §3 requires it, and ID tokens cannot be verified ' +
          'without it.',
      );
    const res = await this.http.get(uri, { label: 'JWKS' });
    const keys = res.body.keys;
    if (res.status !== 200 || !Array.isArray(keys)) {
      throw new CheckFailure(
        `GET ${uri} answered ${res.status} without a "keys" array; RFC 7517 §5 requires a JWK Set with "keys".`,
      );
    }
    const odd = keys.flatMap((k: unknown, i) =>
      k && typeof k === 'object' && !Array.isArray(k)
        ? []
        : [`entry ${i + 1} is ${k === null ? 'null' : Array.isArray(k) ? 'an array' : typeof k}`],
    );
    if (odd.length) {
      throw new CheckFailure(
        `GET ${uri} answered a "keys" array whose ${odd.slice(0, 5).join(', ')}${odd.length > 5 ? ', …' : ''}; RFC ` +
          `7517 §5 requires "keys" to be an array of JWK objects.`,
      );
    }
    this.#jwks = { keys: keys as jose.JWK[] };
    return this.#jwks;
  }

  /** The JWKS's asymmetric keys without their private members, if it leaks any (jwks.public-keys-only reports that). */
  async #publicKeys(): Promise<jose.JWK[]> {
    const { keys } = await this.jwks();
    return keys
      .filter((k) => k.kty !== 'oct')
      .map((k) => {
        const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, oth: _oth, ...pub } = k;
        return pub;
      });
  }

  decode(token: string): DecodedJwt {
    return decodeJwt(token);
  }

  /** The algorithms an ID token may use: advertised ones, minus none and symmetric algorithms. */
  allowedAlgorithms(): string[] {
    const advertised = this.target.discovery?.id_token_signing_alg_values_supported;
    const list = Array.isArray(advertised) ? advertised.filter((a): a is string => typeof a === 'string') : ['RS256'];
    return list.filter((a) => ASYMMETRIC_ALGS.some((alg) => alg === a));
  }

  /**
   * The signature half of the SPEC's JWT table for an ID token: an alg on the allow-list (advertised,
   * asymmetric; never none), a JWKS key chosen by kid, and a signature that verifies with it.
   */
  async verifyIdTokenSignature(idToken: string): Promise<DecodedJwt> {
    const decoded = decodeJwt(idToken);
    const { header } = decoded;
    const allowed = this.allowedAlgorithms();
    const alg = String(header.alg);
    if (!allowed.includes(alg)) {
      throw new CheckFailure(
        `The ID token is signed with alg "${alg}", which is not among the allowed asymmetric algorithms advertised ` +
          `by the IdP (${allowed.join(', ') || 'none advertised'}); OIDC Core §3.1.3.7 and RFC 8725 §3.1 require ` +
          `the verifier to reject it.`,
      );
    }
    try {
      await jose.compactVerify(idToken, await this.#publicKeySet(), { algorithms: allowed });
    } catch (error) {
      throw new CheckFailure(describeJoseError(error, header, '', this.target.issuer), { cause: error });
    }
    return decoded;
  }

  /**
   * Another JWT the IdP signs like its ID tokens (a logout token, OIDC Back-Channel Logout §2.4): an alg on the same
   * allow-list (never none, never symmetric) and a signature by a JWKS key; `label` names it in the failure, `per`
   * is the requirement it fails.
   */
  async verifySignedBy(token: string, label: string, per?: RequirementRef): Promise<DecodedJwt> {
    const decoded = decodeJwt(token);
    const alg = String(decoded.header.alg);
    const allowed = this.allowedAlgorithms();
    const options = per === undefined ? {} : { requirement: per };
    if (!allowed.includes(alg)) {
      throw new CheckFailure(
        `The ${label} is signed with alg "${alg}", not one of the asymmetric algorithms the IdP advertises for ID ` +
          `tokens (${allowed.join(', ') || 'none advertised'}); it must be signed (RFC 8725 §3.1: never none).`,
        options,
      );
    }
    try {
      await jose.compactVerify(token, await this.#publicKeySet(), { algorithms: allowed });
    } catch (error) {
      throw new CheckFailure(
        `The ${label}'s signature does not verify with the IdP's JWKS (kid ` +
          `${decoded.header.kid === undefined ? 'absent' : JSON.stringify(decoded.header.kid)}: ` +
          `${errorMessage(error)}).`,
        { ...options, cause: error },
      );
    }
    return decoded;
  }

  /**
   * The JWKS's public parts only (#publicKeys) as a key set: a JWKS that also leaks private members
   * (jwks.public-keys-only reports that) still holds the key the token was signed with, and one flaw gets one verdict.
   */
  async #publicKeySet() {
    return jose.createLocalJWKSet({ keys: await this.#publicKeys() });
  }

  /**
   * Whether a JWS verifies with a public key of the target's JWKS (chosen by kid, else every key of the alg's type),
   * under `algorithms`: undefined when it does, else the reason in words. For tokens other than ID tokens (a JWT
   * access token), whose scenario words the failure itself.
   */
  async jwksVerifies(token: string, algorithms: readonly string[]): Promise<string | undefined> {
    try {
      await jose.compactVerify(token, await this.#publicKeySet(), { algorithms: [...algorithms] });
      return undefined;
    } catch (error) {
      if (error instanceof jose.errors.JWKSNoMatchingKey) return 'no key of the JWKS matches its kid and alg';
      if (error instanceof jose.errors.JWKSMultipleMatchingKeys) return 'several JWKS keys match and none verifies it';
      if (error instanceof jose.errors.JWSSignatureVerificationFailed) return 'its signature does not verify';
      if (error instanceof jose.errors.JOSEAlgNotAllowed) return 'its alg is not an asymmetric JWS algorithm';
      return `it cannot be verified (${errorMessage(error)})`;
    }
  }

  /**
   * The claims half, read without trusting the signature: iss, sub, aud, exp, iat (required), nbf,
   * azp (when present), the nonce echoed, and at_hash when the access token is given (OIDC Core §2, §3.1.3.7).
   */
  validateIdTokenClaims(idToken: string, expect: IdTokenExpectations): jose.JWTPayload {
    const { header } = decodeJwt(idToken);
    const clientId = expect.client.clientId;
    let payload: jose.JWTPayload;
    try {
      // jose checks a claims set only with a verification; an unsecured copy of the token (same
      // payload, header alg none) has its claims checked by the same code, and nothing else.
      const unsecured = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${idToken.split('.')[1]}.`;
      ({ payload } = jose.UnsecuredJWT.decode(unsecured, {
        issuer: this.target.issuer,
        audience: clientId,
        clockTolerance: expect.clockToleranceSec ?? 60,
        requiredClaims: ['iss', 'sub', 'aud', 'exp', 'iat'],
      }));
    } catch (error) {
      throw new CheckFailure(describeJoseError(error, header, clientId, this.target.issuer), { cause: error });
    }
    // Several audiences without azp are not judged: OIDC Core 1.0 errata set 2 makes azp OPTIONAL whatever aud holds
    // (the step "the Client SHOULD verify that an azp Claim is present" of errata 1 is gone, and bound the client).
    if (payload.azp !== undefined && payload.azp !== clientId) {
      throw new CheckFailure(
        `The ID token's azp is "${String(payload.azp)}", not the client_id "${clientId}"; OIDC Core §2 requires ` +
          `azp, when present, to be the client ID of the party the ID token was issued to.`,
      );
    }
    if (expect.nonce !== undefined && payload.nonce !== expect.nonce) {
      throw new CheckFailure(
        `The ID token's nonce is ${payload.nonce === undefined ? 'missing' : `"${String(payload.nonce)}"`}, not the ` +
          `nonce sent in the authorization request; OIDC Core §3.1.3.7 requires it to be echoed exactly.`,
      );
    }
    if (expect.accessToken !== undefined)
      this.checkAtHash(idToken, expect.accessToken, { required: expect.requireAtHash ?? false });
    return payload;
  }

  /**
   * at_hash against the access token issued with the ID token (OIDC Core §3.1.3.8, §3.2.2.9):
   * 'matched', or 'absent' when there is none and none is required; a mismatch is a CheckFailure.
   */
  checkAtHash(idToken: string, accessToken: string, options: { required?: boolean } = {}): 'matched' | 'absent' {
    return checkTokenHash(idToken, 'at_hash', accessToken, options.required ?? false, {
      defined: 'OIDC Core §3.1.3.6',
      mismatch: (want) =>
        `but the access token hashes to "${want}"; OIDC Core §3.1.3.8 and the SPEC's JWT validation table ` +
        `require a match.`,
    });
  }

  /**
   * c_hash against the code issued with the ID token at the authorization endpoint (OIDC Core §3.3.2.10, §3.3.2.11):
   * 'matched', or 'absent' when there is none and none is required; a missing (when required) or wrong one is a
   * CheckFailure.
   */
  checkCHash(idToken: string, code: string, options: { required?: boolean } = {}): 'matched' | 'absent' {
    return checkTokenHash(idToken, 'c_hash', code, options.required ?? false, {
      defined: 'OIDC Core §3.3.2.11',
      mismatch: (want, alg) =>
        `but the code issued with it hashes to "${want}" (the left half of its ${hashName(alg)} hash); OIDC Core ` +
        '§3.3.2.11 requires c_hash to be that value when the ID token comes with a code.',
    });
  }

  /**
   * Validate an ID token fully (signature, then claims); returns its claims or throws a CheckFailure saying what is
   * wrong.
   */
  async validateIdToken(idToken: string, expect: IdTokenExpectations): Promise<jose.JWTPayload> {
    await this.verifyIdTokenSignature(idToken);
    return this.validateIdTokenClaims(idToken, expect);
  }
}

/** at_hash or c_hash of `idToken` against `value` (protocol/token-hash.ts): the words of a failure by `say`. */
function checkTokenHash(
  idToken: string,
  claim: 'at_hash' | 'c_hash',
  value: string,
  required: boolean,
  say: { defined: string; mismatch: (want: string, alg: string) => string },
): 'matched' | 'absent' {
  const { header, payload } = decodeJwt(idToken);
  const alg = String(header.alg);
  if (payload[claim] === undefined && !required) return 'absent';
  const want = tokenHash(value, alg);
  if (want === undefined) {
    throw new CheckFailure(
      `The ID token's alg "${alg}" names no hash function, so its ${claim} cannot be computed; ` +
        `${say.defined} defines ${claim} by the hash of the JWS alg of the ID token.`,
    );
  }
  if (payload[claim] !== want) {
    const got = payload[claim] === undefined ? 'missing' : `"${String(payload[claim])}"`;
    throw new CheckFailure(`The ID token's ${claim} is ${got} ${say.mismatch(want, alg)}`);
  }
  return 'matched';
}

function describeJoseError(
  error: unknown,
  header: jose.ProtectedHeaderParameters,
  clientId: string,
  issuer: string,
): string {
  const code = error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
  const e =
    error instanceof jose.errors.JWTClaimValidationFailed || error instanceof jose.errors.JWTExpired
      ? error
      : { payload: undefined, claim: '', reason: '' };
  switch (code) {
    case 'ERR_JWKS_NO_MATCHING_KEY':
      return (
        `The ID token's header (kid ${header.kid === undefined ? 'absent' : `"${header.kid}"`}, alg ` +
        `"${header.alg}") matches no key in the JWKS; the SPEC's JWT validation table and OIDC Core §10.1 require a ` +
        `signature by a key from the key set, selected by kid.`
      );
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return (
        'The ID token has no kid and the JWKS has several matching keys; OIDC Core §10.1 requires a kid when ' +
        'the key set holds more than one key.'
      );
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return (
        "The ID token's signature does not verify with the JWKS key it names; the SPEC's JWT validation table " +
        'requires a valid signature.'
      );
    case 'ERR_JWT_EXPIRED':
      return (
        `The ID token has expired (exp ${String(e.payload?.exp)}, now ${Math.floor(Date.now() / 1000)}); the ` +
        `SPEC's JWT validation table requires an unexpired token.`
      );
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED': {
      const value = e.payload?.[e.claim];
      const shown = value === undefined ? 'missing' : JSON.stringify(value);
      if (e.claim === 'iss')
        return (
          `The ID token's iss is ${shown}, not the issuer "${issuer}"; OIDC Core §3.1.3.7 requires it to equal ` +
          `the issuer exactly.`
        );
      if (e.claim === 'aud')
        return (
          `The ID token's aud is ${shown}, which does not contain the client_id "${clientId}"; OIDC Core ` +
          `§3.1.3.7 requires it.`
        );
      if (e.claim === 'nbf')
        return (
          `The ID token's nbf (${shown}) is in the future; the SPEC's JWT validation table requires an ` +
          `active token.`
        );
      if (e.claim === 'iat')
        return (
          `The ID token's iat (${shown}) is ${e.reason === 'missing' ? 'missing' : 'invalid'}; OIDC Core §2 ` +
          `requires iat.`
        );
      return `The ID token's ${e.claim} is ${shown} (${e.reason}); OIDC Core §2 requires iss, sub, aud, exp and iat.`;
    }
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return `The ID token's alg "${header.alg}" is not allowed; RFC 8725 §3.1 requires an allow-list.`;
    default:
      return (
        `The ID token could not be verified (${code ?? 'error'}: ${errorMessage(error)}); the SPEC's JWT ` +
        `validation table requires it to verify.`
      );
  }
}
