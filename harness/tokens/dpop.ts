/**
 * DPoP proofs (RFC 9449 §4.2): the harness makes its own key pairs per run (never configured),
 * and signs proofs with them. Options make the wrong proofs scenarios check are refused.
 */
import { randomBytes } from 'node:crypto';
import { generateKeyPairFor } from '../../protocol/jws.ts';
import { jwkThumbprint } from '../../protocol/jwk.ts';
import { accessTokenHash } from '../../protocol/token-hash.ts';
import { HarnessError } from '../model/failures.ts';
import { type Jwk, type JwsAlg, jwkOf, publicJwkOf, signJws, unsecuredJws } from './jws-sign.ts';

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

export { jwkThumbprint } from '../../protocol/jwk.ts';

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
      ...(options.accessToken ? { ath: accessTokenHash(options.accessToken) } : {}),
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
  return new DpopKey(jwkOf(generateKeyPairFor(alg).privateKey), alg);
}
