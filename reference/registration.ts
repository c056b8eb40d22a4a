/**
 * Dynamic client registration (RFC 7591) and its management (RFC 7592), without the HTTP: the
 * settings, the validation of client metadata (RFC 7591 §2, OIDC Registration §2), and the client a
 * registration record stands for. endpoints/registration.ts serves it. Registered clients live in
 * the Store, so instances on one Redis share them.
 */
import { z } from 'zod';
import type { ServerContext } from './context.ts';
import type { Flaws } from './flaws.ts';
import { REQUIRED_ID_TOKEN_ALG, SIGNING_ALGS } from './keys.ts';
import { JSON_OBJECT } from './json.ts';
import { OAuthError } from './oauth-error.ts';
import {
  type ClientAuthMethod,
  type GrantType,
  type ReferenceOptions,
  type RegisteredClient,
  type RegistrationSettings,
  SCOPES_SUPPORTED,
} from './options.ts';
import type { ClientRegistrationRecord } from './store/store.ts';
import { isPlainHttpRemote } from './loopback.ts';
import { GRANT } from '../protocol/grants.ts';

export type { RegistrationSettings } from './options.ts';

/** A day: long enough for any run, short enough that a forgotten registration goes away. */
export const DEFAULT_CLIENT_LIFETIME = 24 * 3600;

/** The registration settings, or undefined when registration is off (the default). */
export function registrationSettings(
  options: Pick<ReferenceOptions, 'registration'>,
): RegistrationSettings | undefined {
  const given = options.registration;
  if (given === undefined || given === false) return undefined;
  const settings = given === true ? {} : given;
  const clientLifetime = settings.clientLifetime ?? DEFAULT_CLIENT_LIFETIME;
  if (!Number.isInteger(clientLifetime) || clientLifetime < 60) {
    throw new Error(
      `registration.clientLifetime must be a whole number of seconds, at least 60 (got ${clientLifetime})`,
    );
  }
  if (settings.initialAccessToken !== undefined && settings.initialAccessToken.trim() === '') {
    throw new Error('registration.initialAccessToken must not be empty (leave it out for open registration)');
  }
  return {
    clientLifetime,
    ...(settings.initialAccessToken === undefined ? {} : { initialAccessToken: settings.initialAccessToken }),
  };
}

/** Grant types a client may register for; the deprecated password and implicit grants are not offered. */
const REGISTRABLE_GRANTS: readonly GrantType[] = [
  GRANT.code,
  GRANT.refresh,
  GRANT.clientCredentials,
  GRANT.device,
  GRANT.exchange,
];

/** Grants that send the user back to a redirect URI (RFC 7591 §2: such clients MUST register one). */
const REDIRECT_GRANTS: readonly string[] = [GRANT.code, GRANT.implicit];

/** Free-text metadata (RFC 7591 §2, OIDC Registration §2) kept and returned as sent. */
const STRING_FIELDS = [
  'client_name',
  'client_uri',
  'logo_uri',
  'tos_uri',
  'policy_uri',
  'software_id',
  'software_version',
] as const;

const MAX_STRING = 2000;
const MAX_URIS = 20;
/** JWK members that only a private key has (RFC 7518 §6.2.2, §6.3.2, §6.4). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

const invalidMetadata = (description: string) => new OAuthError('invalid_client_metadata', description);
const invalidRedirect = (description: string) => new OAuthError('invalid_redirect_uri', description);

const optionalString = z.string().optional();
const PUBLIC_JWK = z.looseObject({ kty: z.string() });

/**
 * The metadata a server registers: what it understood of the request, with its defaults filled in (checkMetadata
 * makes it). A stored registration's metadata is read back through this schema (clientOfRegistration), its fields
 * in the order checkMetadata writes them.
 */
const CLIENT_METADATA = z.object({
  redirect_uris: z.array(z.string()),
  token_endpoint_auth_method: z.enum(['client_secret_basic', 'client_secret_post', 'none', 'private_key_jwt']),
  grant_types: z.array(z.enum(GRANT)),
  response_types: z.array(z.string()),
  scope: z.string(),
  client_name: optionalString,
  client_uri: optionalString,
  logo_uri: optionalString,
  tos_uri: optionalString,
  policy_uri: optionalString,
  software_id: optionalString,
  software_version: optionalString,
  application_type: z.enum(['web', 'native']).optional(),
  contacts: z.array(z.string()).optional(),
  post_logout_redirect_uris: z.array(z.string()).optional(),
  backchannel_logout_uri: optionalString,
  frontchannel_logout_uri: optionalString,
  backchannel_logout_session_required: z.boolean().optional(),
  frontchannel_logout_session_required: z.boolean().optional(),
  jwks: z.object({ keys: z.array(PUBLIC_JWK) }).optional(),
  id_token_signed_response_alg: z.enum(SIGNING_ALGS).optional(),
  authorization_signed_response_alg: z.enum(SIGNING_ALGS).optional(),
});

export type ClientMetadata = z.infer<typeof CLIENT_METADATA>;

/**
 * RFC 7591 §2: validates a registration (or an update's) metadata and fills in the defaults.
 * Metadata the server does not understand is ignored (§2); a value it cannot accept is
 * invalid_client_metadata, a redirect URI it cannot accept invalid_redirect_uri (§3.2.2).
 */
export function checkMetadata(server: ServerContext, body: unknown): ClientMetadata {
  const parsed = JSON_OBJECT.safeParse(body);
  if (!parsed.success) throw invalidMetadata('the request body must be a JSON object of client metadata');
  const input = parsed.data;
  const { flaws } = server;
  const method = authMethod(server, input.token_endpoint_auth_method);
  const grantTypes = grantTypesOf(input.grant_types);
  const responseTypes = responseTypesOf(input.response_types, grantTypes);
  const redirectUris = uriList(input.redirect_uris, 'redirect_uris', invalidRedirect, flaws);
  // MCP (communication security): a redirect URI is https or loopback; the flaw takes a remote http one.
  const remoteHttp = redirectUris.find(isPlainHttpRemote);
  if (server.options.mcp && remoteHttp !== undefined && !flaws.has('registration-http-redirect-accepted'))
    throw invalidRedirect(
      'redirect_uris: an http redirect URI must be on a loopback host (127.0.0.1, [::1], localhost)',
    );
  if (
    redirectUris.length === 0 &&
    grantTypes.some((grant) => REDIRECT_GRANTS.includes(grant)) &&
    !flaws.has('registration-redirect-uris-optional')
  ) {
    throw invalidRedirect('redirect_uris is required for a client that uses the authorization code grant');
  }
  if (method === 'none' && grantTypes.some((grant) => grant === GRANT.clientCredentials || grant === GRANT.exchange)) {
    throw invalidMetadata(`a public client (token_endpoint_auth_method none) cannot use ${grantTypes.join(' ')}`);
  }
  const jwks = jwksOf(input.jwks);
  if (method === 'private_key_jwt' && jwks === undefined) {
    throw invalidMetadata('private_key_jwt needs the client public keys in jwks (jwks_uri is not supported)');
  }
  const metadata: ClientMetadata = {
    redirect_uris: redirectUris,
    token_endpoint_auth_method: method,
    grant_types: grantTypes,
    response_types: responseTypes,
    scope: scopeOf(server, input.scope),
  };
  for (const field of STRING_FIELDS) {
    const value = input[field];
    if (value === undefined) continue;
    if (typeof value !== 'string' || value.length > MAX_STRING) {
      throw invalidMetadata(`${field} must be a string of at most ${MAX_STRING} characters`);
    }
    metadata[field] = value;
  }
  if (input.application_type !== undefined) {
    if (input.application_type !== 'web' && input.application_type !== 'native') {
      throw invalidMetadata('application_type must be web or native');
    }
    metadata.application_type = input.application_type;
  }
  if (input.contacts !== undefined) metadata.contacts = stringList(input.contacts, 'contacts');
  if (input.post_logout_redirect_uris !== undefined) {
    metadata.post_logout_redirect_uris = uriList(
      input.post_logout_redirect_uris,
      'post_logout_redirect_uris',
      invalidMetadata,
      flaws,
    );
  }
  for (const field of ['backchannel_logout_uri', 'frontchannel_logout_uri'] as const) {
    if (input[field] !== undefined) metadata[field] = logoutUri(input[field], field);
  }
  for (const field of ['backchannel_logout_session_required', 'frontchannel_logout_session_required'] as const) {
    const value = input[field];
    if (value === undefined) continue;
    if (typeof value !== 'boolean') throw invalidMetadata(`${field} must be a boolean`);
    metadata[field] = value;
  }
  if (jwks !== undefined) metadata.jwks = jwks;
  // OIDC Registration §2 (ID tokens), JARM §3 (authorization responses): one of the algs the server signs with (OIDC
  // Discovery §3, JARM §4).
  for (const field of ['id_token_signed_response_alg', 'authorization_signed_response_alg'] as const) {
    const asked = input[field];
    if (asked === undefined) continue;
    const algs = server.keys.signingAlgs;
    const alg = algs.find((known) => known === asked);
    if (alg === undefined) throw invalidMetadata(`${field} must be one of ${algs.join(', ')}`);
    metadata[field] = alg;
  }
  return metadata;
}

/**
 * OIDC Back-Channel Logout §2.2 and Front-Channel Logout §2: an absolute http(s) URI without a fragment (the
 * reference POSTs to the back-channel one, so no other scheme).
 */
function logoutUri(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length > MAX_STRING || !URL.canParse(value))
    throw invalidMetadata(`${field} must be an absolute URI`);
  const url = new URL(value);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalidMetadata(`${field} must be an http(s) URI`);
  if (value.includes('#')) throw invalidMetadata(`${field} must not include a fragment`);
  return value;
}

function authMethod(server: ServerContext, value: unknown): ClientAuthMethod {
  // RFC 7591 §2: the default is client_secret_basic.
  const method = value ?? 'client_secret_basic';
  const accepted = server.security.authMethods;
  const known = accepted.find((one) => one === method);
  if (known === undefined) throw invalidMetadata(`token_endpoint_auth_method must be one of ${accepted.join(', ')}`);
  return known;
}

function grantTypesOf(value: unknown): GrantType[] {
  // RFC 7591 §2: the default is authorization_code.
  const names = value === undefined ? [GRANT.code] : stringList(value, 'grant_types');
  const grants = names.map((name) => {
    const grant = REGISTRABLE_GRANTS.find((registrable) => registrable === name);
    if (grant === undefined) throw invalidMetadata(`grant_types: ${name} is not offered to registered clients`);
    return grant;
  });
  return [...new Set(grants)];
}

/** RFC 7591 §2.1: response types consistent with the grant types (code goes with authorization_code). */
function responseTypesOf(value: unknown, grants: readonly GrantType[]): string[] {
  const usesCode = grants.includes(GRANT.code);
  const types = value === undefined ? (usesCode ? ['code'] : []) : [...new Set(stringList(value, 'response_types'))];
  for (const type of types) {
    if (type !== 'code') throw invalidMetadata(`response_types: ${type} is not supported (only code)`);
  }
  if (types.includes('code') !== usesCode) {
    throw invalidMetadata('response_types code and grant_types authorization_code go together (RFC 7591 section 2.1)');
  }
  return types;
}

/** The scopes asked for, each one this server supports; absent: every supported scope. */
function scopeOf(server: ServerContext, value: unknown): string {
  const supported = [...SCOPES_SUPPORTED, ...Object.keys(server.options.scopeClaims ?? {})];
  if (value === undefined) return supported.join(' ');
  if (typeof value !== 'string' || value.length > MAX_STRING) throw invalidMetadata('scope must be a string');
  const scopes = [...new Set(value.split(' ').filter((scope) => scope !== ''))];
  const unknown = scopes.find((scope) => !supported.includes(scope));
  if (unknown !== undefined) throw invalidMetadata(`scope ${unknown} is not supported`);
  if (scopes.length === 0) throw invalidMetadata('scope names no scope');
  return scopes.join(' ');
}

function stringList(value: unknown, field: string): string[] {
  if (!Array.isArray(value) || value.length > MAX_URIS) {
    throw invalidMetadata(`${field} must be an array of at most ${MAX_URIS} strings`);
  }
  return value.map((item: unknown) => {
    if (typeof item !== 'string' || item === '' || item.length > MAX_STRING) {
      throw invalidMetadata(`${field} must hold non-empty strings of at most ${MAX_STRING} characters`);
    }
    return item;
  });
}

/**
 * Redirect URIs (RFC 6749 §3.1.2): absolute, without a fragment, not a script or data scheme.
 * Flaw registration-accepts-fragment lets a fragment through.
 */
function uriList(value: unknown, field: string, refuse: (description: string) => OAuthError, flaws: Flaws): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length > MAX_URIS) {
    throw refuse(`${field} must be an array of at most ${MAX_URIS} URIs`);
  }
  const uris = value.map((uri: unknown) => {
    if (typeof uri !== 'string' || uri.length > MAX_STRING || !URL.canParse(uri)) {
      throw refuse(`${field} must hold absolute URIs`);
    }
    if (uri.includes('#') && !flaws.has('registration-accepts-fragment')) {
      throw refuse(`${field}: a redirection URI must not include a fragment (RFC 6749 section 3.1.2)`);
    }
    if (['javascript:', 'data:', 'vbscript:', 'file:'].includes(new URL(uri).protocol)) {
      throw refuse(`${field}: the ${new URL(uri).protocol} scheme is not allowed`);
    }
    return uri;
  });
  return [...new Set(uris)];
}

/** A public JWK Set (RFC 7517 §5): at most 10 keys, each with kty, none with private members. */
function jwksOf(value: unknown): ClientMetadata['jwks'] {
  if (value === undefined) return undefined;
  const keys = typeof value === 'object' && value !== null && 'keys' in value ? value.keys : undefined;
  if (!Array.isArray(keys) || keys.length === 0 || keys.length > 10) {
    throw invalidMetadata('jwks must be a JWK Set: {"keys": [...]} with 1 to 10 keys');
  }
  return {
    keys: keys.map((key: unknown) => {
      const jwk = PUBLIC_JWK.safeParse(key);
      if (!jwk.success) throw invalidMetadata('every key of jwks must be a JWK object with kty');
      if (PRIVATE_MEMBERS.some((member) => member in jwk.data))
        throw invalidMetadata('jwks must hold public keys only');
      return jwk.data;
    }),
  };
}

/** Whether the method authenticates with a client_secret (RFC 7591 §2). */
export const usesSecret = (method: ClientAuthMethod): boolean =>
  method === 'client_secret_basic' || method === 'client_secret_post';

/**
 * The client a registration stands for. A public client (method none) is third-party like the
 * seeded public client (consent page, PKCE required); one that authenticates is first-party like
 * the seeded confidential client, so a run against registered clients judges what one against
 * the seeded ones does.
 */
export function clientOfRegistration(record: ClientRegistrationRecord): RegisteredClient {
  const metadata = CLIENT_METADATA.parse(record.metadata);
  const method = metadata.token_endpoint_auth_method;
  const postLogout = metadata.post_logout_redirect_uris;
  const jwks = metadata.jwks;
  return {
    clientId: record.clientId,
    ...(record.clientSecret === undefined ? {} : { clientSecret: record.clientSecret }),
    ...(method === 'private_key_jwt' ? {} : { tokenEndpointAuthMethod: method }),
    redirectUris: metadata.redirect_uris,
    allowedScope: metadata.scope,
    grantTypes: metadata.grant_types,
    firstParty: method !== 'none',
    name: typeof metadata.client_name === 'string' ? metadata.client_name : record.clientId,
    ...(postLogout === undefined ? {} : { postLogoutRedirectUris: postLogout }),
    ...logoutMetadata(metadata),
    ...(jwks === undefined ? {} : { jwks }),
    // OIDC Registration §2: RS256 when the registration named no alg.
    idTokenSignedResponseAlg: metadata.id_token_signed_response_alg ?? REQUIRED_ID_TOKEN_ALG,
    ...(metadata.authorization_signed_response_alg === undefined
      ? {}
      : { authorizationSignedResponseAlg: metadata.authorization_signed_response_alg }),
  };
}

/** The logout URIs a registration gave (OIDC Back-Channel Logout §2.2, Front-Channel Logout §2). */
function logoutMetadata(
  metadata: ClientMetadata,
): Pick<
  RegisteredClient,
  | 'backchannelLogoutUri'
  | 'backchannelLogoutSessionRequired'
  | 'frontchannelLogoutUri'
  | 'frontchannelLogoutSessionRequired'
> {
  const back = metadata.backchannel_logout_uri;
  const front = metadata.frontchannel_logout_uri;
  return {
    ...(typeof back === 'string' ? { backchannelLogoutUri: back } : {}),
    ...(metadata.backchannel_logout_session_required === true ? { backchannelLogoutSessionRequired: true } : {}),
    ...(typeof front === 'string' ? { frontchannelLogoutUri: front } : {}),
    ...(metadata.frontchannel_logout_session_required === true ? { frontchannelLogoutSessionRequired: true } : {}),
  };
}
