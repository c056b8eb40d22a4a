/**
 * Minting JWT access tokens (RFC 9068) and ID tokens (OIDC Core §2). Presented tokens are
 * verified in verify.ts.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { JWTPayload } from 'jose';
import { ACCESS_TOKEN_JWT_TYP } from '../protocol/jwt-profiles.ts';
import { BACKCHANNEL_LOGOUT_EVENT, LOGOUT_TOKEN_TYP } from '../protocol/logout.ts';
import { tokenHash } from '../protocol/token-hash.ts';
import { shapeClaims } from './claim-shapes.ts';
import type { Flaws } from './flaws.ts';
import { signCompact } from './jws.ts';
import type { KeySet, SigningAlg } from './keys.ts';
import type { Lifetimes } from './lifetimes.ts';
import type { ClientConfig, ShapeClaims, UserConfig } from './options.ts';
import { claimsForScope } from './scopes.ts';

/** Random bytes drawn from the CSPRNG 128 tokens at a time (one call instead of one per token); each byte used once. */
const TOKEN_BYTES = 32;
let randomPool = Buffer.alloc(0);
let poolOffset = 0;

/**
 * RFC 9068 §2.1: the typ of our JWT access tokens; the flaw mints them as plain JWTs. The verifier (verify.ts) asks
 * for the same typ, so the flawed server still takes its own tokens.
 */
export const accessTokenTyp = (flaws: Flaws): string => (flaws.has('at-jwt-wrong-typ') ? 'JWT' : ACCESS_TOKEN_JWT_TYP);

/** OIDC Core §2 acr: the one authentication context class the reference's login (a password) meets. */
export const REFERENCE_ACR = 'urn:idp-conformance:acr:password';

/** A fresh opaque value: codes, refresh tokens, jti, interaction ids. 256 bits. */
export function randomToken(): string {
  if (poolOffset + TOKEN_BYTES > randomPool.length) {
    randomPool = randomBytes(TOKEN_BYTES * 128);
    poolOffset = 0;
  }
  const token = randomPool.toString('base64url', poolOffset, poolOffset + TOKEN_BYTES);
  poolOffset += TOKEN_BYTES;
  return token;
}

export interface TokenServiceDeps {
  issuer(): string;
  keys: KeySet;
  flaws: Flaws;
  lifetimes: Lifetimes;
  /** Epoch milliseconds. */
  now(): number;
  /** ReferenceOptions.scopeClaims: your own scopes and the claims they release. */
  scopeClaims?: Readonly<Record<string, readonly string[]>> | undefined;
  /** ReferenceOptions.shapeClaims: may add claims, never change a protected one. */
  shapeClaims?: ShapeClaims | undefined;
}

/** RFC 8693 §4.1: the acting party; a nested `act` is the one that acted before it. */
export interface ActClaim {
  sub: string;
  act?: ActClaim;
}

export interface MintedAccessToken {
  token: string;
  jti: string;
  /** Seconds. */
  expiresIn: number;
  /** Epoch milliseconds. */
  expiresAt: number;
}

/** Seconds a logout token is valid: two minutes, as OIDC Back-Channel Logout §2.4 suggests. */
const LOGOUT_TOKEN_LIFETIME = 120;

export class TokenService {
  constructor(private readonly deps: TokenServiceDeps) {}

  /** SPEC first/third-party table: third-party clients get the short lifetimes. */
  lifetimesFor(client: ClientConfig): { accessToken: number; refreshToken: number } {
    const l = this.deps.lifetimes;
    const thirdParty = !client.firstParty && !this.deps.flaws.has('third-party-long-lived');
    return thirdParty
      ? { accessToken: l.accessTokenThirdParty, refreshToken: l.refreshTokenThirdParty }
      : { accessToken: l.accessTokenFirstParty, refreshToken: l.refreshTokenFirstParty };
  }

  /** RFC 9068 §2.2: iss, exp, aud, sub, client_id, iat, jti, scope; header typ at+jwt. */
  async accessToken(input: {
    client: ClientConfig;
    sub: string;
    scope: string;
    act?: ActClaim;
    jkt?: string;
    audience?: string;
    user?: UserConfig;
  }): Promise<MintedAccessToken> {
    const iat = this.#seconds();
    const expiresIn = this.lifetimesFor(input.client).accessToken;
    const jti = randomToken();
    const shapeContext = {
      client: input.client,
      scope: input.scope,
      ...(input.user === undefined ? {} : { user: input.user }),
    };
    const token = await this.#sign(
      accessTokenTyp(this.deps.flaws),
      shapeClaims(
        this.deps.shapeClaims,
        'access_token',
        {
          iss: this.deps.issuer(),
          sub: input.sub,
          // RFC 9068 §3: without a resource indicator (RFC 8707), the default resource is this server.
          aud: input.audience ?? this.deps.issuer(),
          client_id: input.client.clientId,
          scope: input.scope,
          iat,
          exp: iat + expiresIn,
          jti,
          ...(input.act === undefined ? {} : { act: input.act }),
          // RFC 9449 §6.1: bound to the DPoP proof's key.
          ...(input.jkt === undefined ? {} : { cnf: { jkt: input.jkt } }),
        },
        shapeContext,
      ),
    );
    return { token, jti, expiresIn, expiresAt: (iat + expiresIn) * 1000 };
  }

  /**
   * OIDC Core §2, §3.1.3.6 and §3.3.2.11: the ID token with the claims of the granted scope, at_hash for the access
   * token issued with it, c_hash for the code issued with it at the authorization endpoint (hybrid).
   */
  async idToken(input: {
    client: ClientConfig;
    user: UserConfig;
    scope: string;
    authTime: number;
    nonce?: string;
    /** The login session's sid (OIDC Back-Channel Logout §2.1, Front-Channel Logout §3). */
    sid?: string;
    /** The access token issued with it (none for response_type id_token and code id_token). */
    accessToken?: string;
    /** The code issued with it in a hybrid response. */
    code?: string;
    /** Issued at the authorization endpoint (implicit and hybrid), not by the token endpoint. */
    frontChannel?: boolean;
    /** Issued by the token endpoint for the code of a hybrid response (OIDC Core §3.3.3.6: the same iss and sub). */
    hybridCode?: boolean;
    /** Claims asked for with the claims request parameter (OIDC Core §5.5), by value. */
    requested?: Record<string, unknown>;
  }): Promise<string> {
    const { flaws } = this.deps;
    const iat = this.#seconds();
    // OIDC Registration §2 id_token_signed_response_alg: the client's alg when it asked for one the server signs with.
    const current = this.deps.keys.signerFor(input.client.idTokenSignedResponseAlg);
    const wrongAtHash = flaws.has('at-hash-wrong') || (input.frontChannel && flaws.has('hybrid-at-hash-wrong'));
    const hashed = wrongAtHash ? `${input.accessToken}x` : input.accessToken;
    return this.#sign(
      'JWT',
      shapeClaims(
        this.deps.shapeClaims,
        'id_token',
        {
          ...claimsForScope(input.user, input.scope, flaws, this.deps.scopeClaims),
          ...input.requested,
          iss: this.deps.issuer(),
          // OIDC Core §3.3.3.6: the same sub as the hybrid response's ID token; the flaw gives a pairwise-like one.
          sub:
            input.hybridCode && flaws.has('hybrid-token-sub-differs')
              ? createHash('sha256').update(`${input.client.clientId} ${input.user.sub}`).digest('base64url')
              : input.user.sub,
          aud: flaws.has('id-token-wrong-aud') ? `${input.client.clientId}-other` : input.client.clientId,
          iat,
          nbf: iat,
          exp: iat + this.deps.lifetimes.idToken,
          // OIDC Core §2: REQUIRED when max_age was requested; always sent here.
          ...(flaws.has('auth-time-missing') ? {} : { auth_time: input.authTime }),
          // OIDC Core §2 and §5.5.1.1: the class the login met, always (a refresh keeps it: the login is the same).
          ...(flaws.has('acr-ignored') ? {} : { acr: REFERENCE_ACR }),
          ...(input.nonce === undefined ? {} : { nonce: input.nonce }),
          ...(input.sid === undefined ? {} : { sid: input.sid }),
          ...(hashed === undefined ? {} : { at_hash: tokenHash(hashed, current.alg) }),
          ...(input.code === undefined || flaws.has('hybrid-c-hash-missing')
            ? {}
            : { c_hash: tokenHash(input.code, current.alg) }),
        },
        { client: input.client, user: input.user, scope: input.scope },
      ),
      flaws.has('id-token-unknown-kid') ? `${current.kid}-unknown` : current.kid,
      current.alg,
    );
  }

  /**
   * OIDC Back-Channel Logout §2.4: iss, aud, iat, exp, jti, the events claim, sub and sid; never a nonce (the
   * flaw logout-token-has-nonce adds one); typ logout+jwt (explicit typing, RECOMMENDED there).
   */
  async logoutToken(input: { client: ClientConfig; sub: string; sid?: string }): Promise<string> {
    const iat = this.#seconds();
    return this.#sign(LOGOUT_TOKEN_TYP, {
      iss: this.deps.issuer(),
      sub: input.sub,
      aud: input.client.clientId,
      iat,
      exp: iat + LOGOUT_TOKEN_LIFETIME,
      jti: randomBytes(16).toString('base64url'),
      events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
      ...(input.sid === undefined ? {} : { sid: input.sid }),
      ...(this.deps.flaws.has('logout-token-has-nonce') ? { nonce: randomBytes(16).toString('base64url') } : {}),
    });
  }

  #seconds(): number {
    return Math.floor(this.deps.now() / 1000);
  }

  /** Signs with the current key, which the key set then keeps until this token has expired. */
  async #sign(typ: string, payload: JWTPayload & { exp: number }, kid?: string, alg?: SigningAlg): Promise<string> {
    const key = this.deps.keys.forSigning(payload.exp * 1000, alg);
    return signCompact({ alg: key.alg, kid: kid ?? key.kid, typ }, payload, key.privateKey);
  }
}
