/**
 * OAuth 2.0 and OpenID Connect error codes, by the section that defines them (the character sets
 * of error_description and error_uri are in syntax.ts).
 */

/** RFC 6749 §4.1.2.1 (and §4.2.2.1): errors of the authorization response. */
export const AUTHORIZATION_ERRORS = [
  'invalid_request',
  'unauthorized_client',
  'access_denied',
  'unsupported_response_type',
  'invalid_scope',
  'server_error',
  'temporarily_unavailable',
] as const;

/** RFC 6749 §5.2: errors of the token endpoint. */
export const TOKEN_ERROR_CODES = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
] as const;

/** RFC 6750 §3.1: errors of a protected resource (the WWW-Authenticate error attribute). */
export const BEARER_ERRORS = ['invalid_request', 'invalid_token', 'insufficient_scope'] as const;

/** RFC 8628 §3.5: the device access token response's additional errors. */
export const DEVICE_ERRORS = ['authorization_pending', 'slow_down', 'access_denied', 'expired_token'] as const;

/** RFC 8693 §2.2.2: token exchange's additional error. */
export const TOKEN_EXCHANGE_ERRORS = ['invalid_target'] as const;

/** RFC 7009 §2.2.1: revocation's additional error. */
export const REVOCATION_ERRORS = ['unsupported_token_type'] as const;

/** RFC 9449 §5, §8, §9: DPoP's errors. */
export const DPOP_ERRORS = ['invalid_dpop_proof', 'use_dpop_nonce'] as const;

/** RFC 9126 §2.3 (and RFC 9101 §6.3): pushed and by-reference request errors. */
export const REQUEST_URI_ERRORS = ['invalid_request_uri'] as const;

/** OIDC Core §3.1.2.6: the errors of a request that cannot be answered without the user. */
export const NO_INTERACTION_ERRORS = [
  'login_required',
  'interaction_required',
  'consent_required',
  'account_selection_required',
] as const;

/** OIDC Core §3.1.2.6: the errors of request objects and registration parameters. */
export const OIDC_REQUEST_ERRORS = [
  'invalid_request_uri',
  'invalid_request_object',
  'request_not_supported',
  'request_uri_not_supported',
  'registration_not_supported',
] as const;

/** OpenID Connect Core Error Code unmet_authentication_requirements 1.0 §1: the OP cannot meet the acr asked for. */
export const UNMET_AUTHENTICATION_REQUIREMENTS = 'unmet_authentication_requirements';

export type OAuthErrorCode =
  | (typeof AUTHORIZATION_ERRORS)[number]
  | (typeof TOKEN_ERROR_CODES)[number]
  | (typeof BEARER_ERRORS)[number]
  | (typeof DEVICE_ERRORS)[number]
  | (typeof TOKEN_EXCHANGE_ERRORS)[number]
  | (typeof REVOCATION_ERRORS)[number]
  | (typeof DPOP_ERRORS)[number]
  | (typeof REQUEST_URI_ERRORS)[number]
  | (typeof NO_INTERACTION_ERRORS)[number]
  | (typeof OIDC_REQUEST_ERRORS)[number]
  | typeof UNMET_AUTHENTICATION_REQUIREMENTS;
