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
 * and redeem (par.bound-to-client's control) have one. An RSA key (2048 bits, FAPI 2.0 SP §5.4.1)
 * whose private JWK names PS256, the algorithm the harness signs with; the server registers its public
 * part without alg, so that one key can sign PS256 and RS256 and fapi2.rs256-refused can tell the two
 * apart by the algorithm alone. Test-only, like the other seeded keys.
 */
export const SEEDED_PARTNER_PRIVATE_JWK = {
  kty: 'RSA',
  kid: 'partner-app-1',
  alg: 'PS256',
  n:
    'xCNQ4m-F-VXLfviurVt2K3lhgx-64aLbOPwbUC8y0TgpsLd0QQJ1Jn8AQiZVpL8QRlMd-e5SOQwyKiqMASNlT1Hfw9XKIA2w' +
    'GPZKfuzioiKYh8PE-YQhUSWfJkn0yZ8-f7qsnpAkiyNypO9z92hK15B9iRxB4Si4fJiekAhWxNzVhabO_3gaHO44uBQYOc5H' +
    'DQfOeOptrEFG5QFVAIrCkUTNzDtBA9VdzdgR1rc2vsHzxfC5QUjMPxctxZkM9HS-mkWhASbx33XSD-h5uw62-rvL7Ha4Jtw1' +
    '2A08ahqbZRV3xoZU_v6FeV7_Ke0fSsMLSSfmEjdPfnRJRm_AkWiQRQ',
  e: 'AQAB',
  d:
    'UcQLPyqQ5n3OxNL1Nw3u-Ha0oQ5EQTY8P8hRtp7Gh5PrRWFlVIiqv-6n8-u5PmHsbfTOhVfF7URZUVzFWuAfpu6R4zkn9y7d' +
    'n7plGf61CDR18_s4DXD41rRhYXvpUXhSfLscpUmgAmU3sOymIpjWwoDY5KTkDfKE3mRdjdv8GDrg4wr3ui5cxQqegwSRN0pD' +
    'a4C1ibv1uInNSHQAd4bmI7jD7ACAAICerLWSbOXKxRDYo2bv6WyTgVwnwDuhMB4-NMpErqFOQabTOGz_lW_n7DFBOwAuYgGo' +
    's6jfX-_w9UPNJwKu5cH9GB4EkrzJSSKyhufY2zZZNEXH7-NapJUMLQ',
  p:
    '5WUlSIRTORxdFGxFvJFwhqMXL6hbZEJnFgXjSfdVl-185ig_p51wZ_d3-inQms_G8R8agM2UcrT6vHRrX7gVWLSJuSIGTf9p' +
    'KOVEs9f-mewzTgXVpRNxiKDQKgc2fyIg1PJX8WMHISdVa5fBb_l1SFSXzZ9e6mcGajwAe6q6tvs',
  q:
    '2uK_xd5E8ZyQ2Jul1vDxP7CZN0MCdmk10pZf7yx7jGH0-nBqUOm6nrOxwscujkOO93rxI0gVClDo8ZI2bKZ06KDjN9sGBVMO' +
    'nGlaBV_i9w9nJiqa88csBYkBgYID-DtNcRgdp63C37uZhcVpiVnLD7pmNqXYQByCBjrDRrz8Mb8',
  dp:
    'ZnV-6Zzw7xlUGcMigs8TS4-c05SG_YkLMjL_ChKHEIzqtIJVrDAN_OHznLEAk6UqXphd5hnsrC9ZrsLxEpfOMQiyWxZvanci' +
    'KTn-LbXT6jwtzjOc8VZ152iskZkXJkHAGF0GGrL4hD5lUOE_bRwm3l-qThVY96l8nAag0Ju5OfE',
  dq:
    'uBL8h6BWhoHOZfrvSoUxvQf8sbaOuZndA44me3MDK5mtdXdYUVdd89zWXyE2i7lQ39rqM2uJFjXY0F7PmiuaIZA7xVtSAuRI' +
    'Y01NwTtUGcVAT56A1QXohXckZw8522WzyKopNjwwqAqSHydXi4SR-lYdY1OxOqk-x5Jfanu_8u0',
  qi:
    'YFHrlHAgoUqniiiG2FlCWe-yEbomYteyrH9Mwx7JaVkRboTO2WrfUlgu7RUARXp0zllPaFtT1xDbB_W_-jSkgnWnL7cWO1ak' +
    'qrR63zRGO6tkB4E9rIisCul_48KNKaP4zGoyRrq19ACQBrF27ZXrzxuQ6fKoSNQN2GkRhhAhjnk',
} as const;

/** The private keys of the seeded clients that authenticate with private_key_jwt. */
export const SEEDED_PRIVATE_JWKS = [SEEDED_KEYED_PRIVATE_JWK, SEEDED_PARTNER_PRIVATE_JWK] as const;
