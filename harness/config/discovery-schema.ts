/**
 * The target config's discoveryOverrides: the RFC 8414 / OpenID Connect Discovery metadata fields
 * it may set over the fetched document, and the checks that a misspelt field or a value of the
 * wrong shape is a config error rather than a silent no-op.
 */
import { z } from 'zod';
import { isAbsoluteUrl } from './fields.ts';

/**
 * RFC 8414 §2 and OpenID Connect Discovery §3 metadata: the fields discoveryOverrides may set.
 * A misspelt field would silently change nothing, so an unknown one is a config error.
 */
export const DISCOVERY_FIELDS = [
  'issuer',
  'authorization_endpoint',
  'token_endpoint',
  'userinfo_endpoint',
  'jwks_uri',
  'registration_endpoint',
  'scopes_supported',
  'response_types_supported',
  'response_modes_supported',
  'grant_types_supported',
  'acr_values_supported',
  'subject_types_supported',
  'id_token_signing_alg_values_supported',
  'id_token_encryption_alg_values_supported',
  'id_token_encryption_enc_values_supported',
  'userinfo_signing_alg_values_supported',
  'userinfo_encryption_alg_values_supported',
  'userinfo_encryption_enc_values_supported',
  'request_object_signing_alg_values_supported',
  'request_object_encryption_alg_values_supported',
  'request_object_encryption_enc_values_supported',
  'token_endpoint_auth_methods_supported',
  'token_endpoint_auth_signing_alg_values_supported',
  'display_values_supported',
  'claim_types_supported',
  'claims_supported',
  'service_documentation',
  'claims_locales_supported',
  'ui_locales_supported',
  'claims_parameter_supported',
  'request_parameter_supported',
  'request_uri_parameter_supported',
  'require_request_uri_registration',
  'op_policy_uri',
  'op_tos_uri',
  'revocation_endpoint',
  'revocation_endpoint_auth_methods_supported',
  'revocation_endpoint_auth_signing_alg_values_supported',
  'introspection_endpoint',
  'introspection_endpoint_auth_methods_supported',
  'introspection_endpoint_auth_signing_alg_values_supported',
  'code_challenge_methods_supported',
  'device_authorization_endpoint',
  'end_session_endpoint',
  'check_session_iframe',
  'frontchannel_logout_supported',
  'backchannel_logout_supported',
  'pushed_authorization_request_endpoint',
  'require_pushed_authorization_requests',
  'dpop_signing_alg_values_supported',
  'authorization_response_iss_parameter_supported',
  'mtls_endpoint_aliases',
  'tls_client_certificate_bound_access_tokens',
] as const;

const KNOWN_FIELDS: ReadonlySet<string> = new Set(DISCOVERY_FIELDS);

export const discoveryOverrides = z
  .record(z.string(), z.unknown())
  .superRefine((overrides, ctx) => {
    for (const [field, value] of Object.entries(overrides)) {
      if (!KNOWN_FIELDS.has(field)) {
        const near = DISCOVERY_FIELDS.filter(
          (f) =>
            f.includes(field.replace(/_supported$|_endpoint$/, '')) ||
            field.includes(f.replace(/_supported$|_endpoint$/, '')),
        ).slice(0, 3);
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message:
            `is not an RFC 8414 / OpenID Connect Discovery metadata ` +
            `field${near.length ? `; did you mean ${near.map((f) => `"${f}"`).join(' or ')}?` : ''}`,
        });
      } else if (
        field.endsWith('_supported') &&
        !field.endsWith('_parameter_supported') &&
        !/^(frontchannel|backchannel)_logout_supported$/.test(field) &&
        !(Array.isArray(value) && value.every((v) => typeof v === 'string'))
      ) {
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: 'must be a JSON array of strings, e.g. ["authorization_code", "refresh_token"]',
        });
      } else if (
        (field.endsWith('_endpoint') || field === 'jwks_uri') &&
        !(typeof value === 'string' && isAbsoluteUrl(value, ['http:', 'https:']))
      ) {
        ctx.addIssue({ code: 'custom', path: [field], message: 'must be an absolute http(s) URL' });
      }
    }
  })
  .describe(
    'RFC 8414 / OpenID Connect Discovery fields merged over the fetched discovery document, for an IdP whose ' +
      'discovery omits or understates what it does (e.g. "grant_types_supported"). Shown in every report.',
  );
