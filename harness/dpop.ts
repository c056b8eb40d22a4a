/**
 * DPoP proofs (RFC 9449 §4.2): the harness makes its own key pairs per run (never configured),
 * and signs proofs with them. Options make the wrong proofs scenarios check are refused.
 */
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { HarnessError } from './failures.ts';
import { type Jwk, type JwsAlg, publicJwkOf, signJws, unsecuredJws } from './jws-sign.ts';

export interface DpopProofOptions {
  /** Seconds to add to iat (negative: a stale proof). */
  iatOffset?: number;
  jti?: string;
  /** The access token the proof accompanies at a resource: its hash goes into ath (§4.2). */
  accessToken?: string;
  /** "none": an unsecured proof. */
  alg?: 'none';
  /** Sign with another key than the one in the jwk header. */
  signWith?: DpopKey;
}

/** JWK thumbprint (RFC 7638) with SHA-256, base64url: the cnf.jkt a bound token carries. */
export function jwkThumbprint(jwk: Jwk): string {
  const required: Record<string, string[]> = {
    EC: ['crv', 'kty', 'x', 'y'],
    RSA: ['e', 'kty', 'n'],
    OKP: ['crv', 'kty', 'x'],
  };
  const members = required[jwk.kty];
  if (!members) throw new HarnessError(`no thumbprint for a ${jwk.kty} key`);
  const canonical = `{${members.map((m) => `${JSON.stringify(m)}:${JSON.stringify(jwk[m])}`).join(',')}}`;
  return createHash('sha256').update(canonical).digest('base64url');
}

export class DpopKey {
  readonly publicJwk: Jwk;
  readonly thumbprint: string;
  constructor(
    private readonly privateJwk: Jwk,
    readonly alg: JwsAlg,
  ) {
    this.publicJwk = publicJwkOf(privateJwk);
    this.thumbprint = jwkThumbprint(this.publicJwk);
  }

  /** A proof for one request: htm and htu without query and fragment (§4.2). */
  proof(htm: string, htu: string, options: DpopProofOptions = {}): string {
    const url = new URL(htu);
    url.search = '';
    url.hash = '';
    const payload: Record<string, unknown> = {
      jti: options.jti ?? randomBytes(16).toString('base64url'),
      htm,
      htu: url.href,
      iat: Math.floor(Date.now() / 1000) + (options.iatOffset ?? 0),
      ...(options.accessToken
        ? { ath: createHash('sha256').update(options.accessToken, 'ascii').digest('base64url') }
        : {}),
    };
    const header = { typ: 'dpop+jwt', alg: this.alg, jwk: this.publicJwk };
    if (options.alg === 'none') return unsecuredJws(header, payload);
    return signJws(header, payload, (options.signWith ?? this).privateJwk);
  }
}

/** A fresh key pair for one of the algorithms the target advertises (ES256 preferred). */
export function createDpopKey(advertised: readonly string[] = ['ES256']): DpopKey {
  const alg = (['ES256', 'PS256', 'RS256', 'EdDSA'] as const).find((a) => advertised.includes(a));
  if (!alg)
    throw new HarnessError(
      `the target advertises no DPoP algorithm the harness can sign with (${advertised.join(', ') || 'none'})`,
    );
  const pair =
    alg === 'ES256'
      ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : alg === 'EdDSA'
        ? generateKeyPairSync('ed25519')
        : generateKeyPairSync('rsa', { modulusLength: 2048 });
  return new DpopKey(pair.privateKey.export({ format: 'jwk' }) as Jwk, alg);
}
