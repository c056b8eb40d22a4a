/** Grant types, token types and other registered URNs of OAuth 2.0 and its extensions. */

/** grant_type values (RFC 6749 §4, RFC 8628 §3.4, RFC 8693 §2.1). */
export const GRANT = {
  code: 'authorization_code',
  clientCredentials: 'client_credentials',
  refresh: 'refresh_token',
  device: 'urn:ietf:params:oauth:grant-type:device_code',
  exchange: 'urn:ietf:params:oauth:grant-type:token-exchange',
  password: 'password',
  implicit: 'implicit',
} as const;

export type GrantType = (typeof GRANT)[keyof typeof GRANT];

/** RFC 7523 §2.1 and §2.2: the JWT bearer grant and its SAML sibling (RFC 7522 §2.1). */
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
export const SAML2_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:saml2-bearer';

/** Token type identifiers (RFC 8693 §3). */
export const TOKEN_TYPE = {
  accessToken: 'urn:ietf:params:oauth:token-type:access_token',
  refreshToken: 'urn:ietf:params:oauth:token-type:refresh_token',
  idToken: 'urn:ietf:params:oauth:token-type:id_token',
  jwt: 'urn:ietf:params:oauth:token-type:jwt',
} as const;

/** client_assertion_type of a JWT client assertion (RFC 7523 §2.2). */
export const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** The prefix of a pushed authorization request's request_uri (RFC 9126 §2.2). */
export const REQUEST_URI_PREFIX = 'urn:ietf:params:oauth:request_uri:';
