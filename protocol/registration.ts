/**
 * OAuth 2.0 Dynamic Client Registration (RFC 7591) and its management protocol (RFC 7592): the metadata names, the
 * fields of a registration response, and the error codes.
 */

/** RFC 7591 §2: the client metadata a registration request may carry (OIDC Registration §2 adds more). */
export const CLIENT_METADATA = [
  'redirect_uris',
  'token_endpoint_auth_method',
  'grant_types',
  'response_types',
  'client_name',
  'client_uri',
  'logo_uri',
  'scope',
  'contacts',
  'tos_uri',
  'policy_uri',
  'jwks_uri',
  'jwks',
  'software_id',
  'software_version',
] as const;

/** OIDC Registration §2: metadata of OpenID clients the harness may send besides RFC 7591's. */
export const OIDC_CLIENT_METADATA = [
  'application_type',
  'post_logout_redirect_uris',
  'id_token_signed_response_alg',
  'token_endpoint_auth_signing_alg',
  'default_max_age',
  'require_auth_time',
] as const;

/**
 * RFC 7591 §3.2.1 and RFC 7592 §3: the fields a registration (or read, or update) response adds to the metadata.
 * `client_secret` and `registration_access_token` are secrets.
 */
export const REGISTRATION_RESPONSE_FIELDS = [
  'client_id',
  'client_secret',
  'client_id_issued_at',
  'client_secret_expires_at',
  'registration_access_token',
  'registration_client_uri',
] as const;

/** The response fields that are credentials: masked in every report (RFC 7591 §3.2.1, RFC 7592 §3). */
export const REGISTRATION_SECRET_FIELDS = ['client_secret', 'registration_access_token'] as const;

/** RFC 7591 §3.2.2: the errors of a registration request (also of an update, RFC 7592 §2.2). */
export const REGISTRATION_ERRORS = [
  'invalid_redirect_uri',
  'invalid_client_metadata',
  'invalid_software_statement',
  'unapproved_software_statement',
] as const;

export type RegistrationError = (typeof REGISTRATION_ERRORS)[number];

/** RFC 7591 §3.1: the success status of a registration; RFC 7592 §2.1-§2.2: of a read or update; §2.3: a delete. */
export const REGISTRATION_STATUS = { created: 201, read: 200, updated: 200, deleted: 204 } as const;
