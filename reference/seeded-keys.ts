/**
 * The private keys of the seeded clients that authenticate with private_key_jwt (test-only, like the
 * seeded secrets): the keyed client's, and the second confidential client's under the FAPI 2.0
 * profile. The server registers only their public parts; serve --target-out writes the private ones.
 */

/**
 * The seeded keyed client's private key (test-only, like the seeded secrets): serve --target-out
 * writes it for the harness; the server registers only its public part.
 */
export const SEEDED_KEYED_PRIVATE_JWK = {
  kty: 'EC',
  crv: 'P-256',
  kid: 'keyed-app-1',
  alg: 'ES256',
  x: '8giua_bOno6h4pn6Vu0Zh2Cnt7RHsIWHp9wF5VfMIsM',
  y: 'Rc5MM5ZxPtr2hr2X9IBf_P_nmKUW9VglKqB5W_LE8HY',
  d: 'KrWuYtDzAhwqNJd2fY4SKGEvWOgLFqCM1By5lEKFTU0',
} as const;

/**
 * Under `profile: 'fapi2'` (private_key_jwt only) the seeded confidential2 client authenticates
 * with this key instead of its secret, so that scenarios needing a second client that can push
 * and redeem (par.bound-to-client's control) have one. Test-only, like the other seeded keys.
 */
export const SEEDED_PARTNER_PRIVATE_JWK = {
  kty: 'EC',
  crv: 'P-256',
  kid: 'partner-app-1',
  alg: 'ES256',
  x: 'czLRmqm1RQfnO_nNLxApKc4vql3scLO6lhqxTTyweQ8',
  y: 'EdReB_6vDJywiPnr6sx2lnjsuERRmibGuASHDeqyBpA',
  d: 'cLJuwz0I0o36hGsJX3r51FcGMW3ZsONYVB94GXut224',
} as const;

/** The private keys of the seeded clients that authenticate with private_key_jwt. */
export const SEEDED_PRIVATE_JWKS = [SEEDED_KEYED_PRIVATE_JWK, SEEDED_PARTNER_PRIVATE_JWK] as const;
