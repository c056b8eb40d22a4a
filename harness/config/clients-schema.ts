/**
 * The target config's clients (one entry per role): client_id, secret or private JWK, redirect
 * URIs, scope, the token endpoint authentication method, a resource indicator and the extra
 * authorization parameters (never one the harness sets itself), each role described for the schema.
 */
import { createPrivateKey } from 'node:crypto';
import { z } from 'zod';
import { EXAMPLES } from './issues.ts';
import { isAbsoluteUrl, nonEmpty, perRole, secret } from './fields.ts';
import type { ClientRole } from '../model/requirements.ts';

export const AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none', 'private_key_jwt'] as const;

/** A private JWK (RSA, EC or OKP) as JSON: node:crypto must be able to import it. */
const privateJwkSchema = z
  .looseObject({
    kty: z.enum(['RSA', 'EC', 'OKP'], { error: 'must be "RSA", "EC" or "OKP" (an asymmetric key)' }),
    d: z
      .string()
      .min(1, { error: 'the private member "d" is required: the harness signs client assertions with this key' }),
    kid: z.string().optional(),
    alg: z.string().optional(),
  })
  .refine(
    (jwk) => {
      try {
        return createPrivateKey({ key: jwk, format: 'jwk' }).asymmetricKeyType !== undefined;
      } catch {
        return false;
      }
    },
    { error: 'is not a private key node:crypto can import (check crv, x, y, n, e and the private members)' },
  );
export type AuthMethod = (typeof AUTH_METHODS)[number];

/**
 * Parameters the harness sets on each authorization request itself (or a scenario varies):
 * authorizationParams may not set them.
 */
export const HARNESS_AUTHORIZATION_PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'nonce',
  'code_challenge',
  'code_challenge_method',
  'prompt',
  'request',
  'request_uri',
  'response_mode',
] as const;

const HARNESS_PARAMS: ReadonlySet<string> = new Set(HARNESS_AUTHORIZATION_PARAMS);

export const authorizationParams = z
  .record(z.string().min(1), z.string())
  .superRefine((params, ctx) => {
    for (const name of Object.keys(params)) {
      if (HARNESS_PARAMS.has(name)) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message:
            `is set by the harness on every authorization request (or varied by scenarios); remove ` +
            `it${name === 'scope' ? ' and use the client\'s "scope"' : ''}`,
        });
      }
    }
  })
  .describe(
    'Extra parameters added to every authorization request (e.g. acr_values, audience, resource); scenarios may ' +
      'still replace them.',
  );

export const clientSchema = z.strictObject({
  clientId: nonEmpty('clientId').describe('The client_id registered at the IdP.'),
  clientSecret: secret('clientSecret')
    .optional()
    .describe('The client secret (confidential clients). Use ${ENV} to keep it out of the file.'),
  redirectUri: z
    .string()
    .refine((v) => isAbsoluteUrl(v), { error: `must be an absolute URL, e.g. ${EXAMPLES.redirectUri}` })
    .optional()
    .describe('A redirect URI registered for the client (exact match). Never fetched by the harness.'),
  scope: z.string().optional().describe('Space-separated scopes the client may request.'),
  authMethod: z
    .enum(AUTH_METHODS)
    .optional()
    .describe(
      'Token endpoint client authentication; default client_secret_basic with a secret, private_key_jwt with a ' +
        'privateJwk, none without either.',
    ),
  privateJwk: privateJwkSchema
    .optional()
    .describe(
      "private_key_jwt (RFC 7523, OIDC Core §9): the client's private JWK, whose public key the IdP has registered. " +
        'A secret: redacted in every report; keep it out of the file with ${ENV} where you can.',
    ),
  resource: z
    .string()
    .refine((v) => isAbsoluteUrl(v), {
      error: 'must be an absolute URI without a fragment (RFC 8707 §2), e.g. "https://api.example.com"',
    })
    .optional()
    .describe(
      'A resource indicator (RFC 8707) the IdP knows for this client: resource.audience asks for a token ' +
        'restricted to it, and the jwt.* scenarios ask with it for a JWT access token when the plain one is opaque.',
    ),
  firstParty: z.boolean().optional().describe('First-party (trusted) or third-party client, per the SPEC table.'),
  postLogoutRedirectUri: z
    .string()
    .refine((v) => isAbsoluteUrl(v), { error: `must be an absolute URL, e.g. ${EXAMPLES.postLogoutRedirectUri}` })
    .optional()
    .describe(
      'A post_logout_redirect_uri registered for the client (OIDC RP-Initiated Logout): logout.rp-initiated needs ' +
        'it. Never fetched.',
    ),
  backchannelLogoutUri: z
    .string()
    .refine(isReceiverUri, {
      error:
        'must be an http(s) URL with an explicit port, e.g. "http://127.0.0.1:8931/backchannel-logout": the ' +
        'harness listens on 127.0.0.1 at that port for the logout token',
    })
    .optional()
    .describe(
      'The backchannel_logout_uri registered for the client (OIDC Back-Channel Logout): logout.back-channel listens ' +
        'on 127.0.0.1 at its port (and path) for the logout token the IdP POSTs there. The URL the IdP reaches ' +
        '(a tunnel or a container host name may stand in for 127.0.0.1), with the port the harness binds.',
    ),
  frontchannelLogoutUri: z
    .string()
    .refine((v) => isAbsoluteUrl(v), {
      error: 'must be an absolute URL, e.g. "https://app.example/frontchannel-logout"',
    })
    .optional()
    .describe(
      'The frontchannel_logout_uri registered for the client (OIDC Front-Channel Logout), with ' +
        "frontchannel_logout_session_required true: logout.front-channel checks that the IdP's logout page loads " +
        'it with iss and sid. Never fetched.',
    ),
  authorizationParams: authorizationParams.optional(),
});

/** An http(s) URL with an explicit port: where the back-channel logout receiver listens. */
function isReceiverUri(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.port !== '' && url.hash === '';
}

const ROLE_DESCRIPTIONS: Record<ClientRole, string> = {
  confidential: 'A confidential client (secret, redirect URI) for the authorization code flow.',
  confidential2: 'A second confidential client, for cross-client binding checks.',
  public: 'A public client (no secret, PKCE) with a redirect URI.',
  machine: 'A confidential client for client_credentials.',
  device: 'A client for the device authorization grant (RFC 8628).',
  exchange: 'A confidential client for token exchange (RFC 8693).',
  legacy:
    'A client allowed the deprecated password and implicit grants (redirect URI for implicit; secret if confidential).',
  keyed:
    'A confidential client that authenticates with private_key_jwt (privateJwk), for the code flow: PAR, DPoP and ' +
    'FAPI 2.0 scenarios.',
};

export const rolesShape = perRole((role) => clientSchema.optional().describe(ROLE_DESCRIPTIONS[role]));

export type PrivateJwk = z.output<typeof privateJwkSchema>;
