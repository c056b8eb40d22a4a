/**
 * Options of the reference server and the types of their parts (clients, user, claims hook,
 * registration), the seeded clients by role (roles of docs/target-config.md), the scopes, and what a
 * client may do (public or not, which grants). Everything here is data; server.ts turns it into a
 * running server (clients.ts resolves the clients, lifetimes.ts the lifetimes; the seeded user and
 * keys are seeded-user.ts and seeded-keys.ts).
 */
import type { FlawName } from './flaws.ts';
import type { VariantName } from './variants.ts';
import type { KeySet, SigningAlg } from './keys.ts';
import type { Lifetimes } from './lifetimes.ts';
import { SEEDED_KEYED_PRIVATE_JWK } from './seeded-keys.ts';
import type { Store } from './store/store.ts';
import type { ClientRole as ConfigRole } from '../protocol/client-roles.ts';
import { GRANT, type GrantType } from '../protocol/grants.ts';

export type { SigningAlg } from './keys.ts';

export type TokenKind = 'access_token' | 'id_token';

/** What a `shapeClaims` hook is told about the token it shapes. */
export interface ShapeContext {
  client: ClientConfig;
  /** The user the token is about; absent for client-credentials and exchanged tokens without one. */
  user?: UserConfig;
  /** The granted scope. */
  scope: string;
}

/**
 * Shapes the claims of a token before it is signed: add claims (roles, groups, tenant…) or change
 * the ones no check depends on. The result may not change a protected claim (PROTECTED_CLAIMS):
 * a token whose claims were changed there is refused with an error, never signed.
 */
export type ShapeClaims = (
  kind: TokenKind,
  claims: Readonly<Record<string, unknown>>,
  context: ShapeContext,
) => Record<string, unknown>;

export type { GrantType } from '../protocol/grants.ts';

export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none' | 'private_key_jwt';

/** A public JWK as JSON (RFC 7517): a private_key_jwt client's registered keys. */
export type PublicJwk = Record<string, unknown> & { kty: string };

/**
 * A client the server knows. The token endpoint authentication method follows from the secret:
 * with one, client_secret_basic or client_secret_post (the client picks; exactly one per request);
 * without one, a public client ("none") that must use PKCE.
 */
export interface ClientConfig {
  clientId: string;
  /** Absent for public clients (token_endpoint_auth_method "none"). */
  clientSecret?: string;
  /**
   * Pins the one method this client may authenticate with (RFC 7591 token_endpoint_auth_method):
   * `client_secret_basic` or `client_secret_post` for a client with a secret, `none` for one
   * without. Absent: either secret method for a client with a secret.
   */
  tokenEndpointAuthMethod?: ClientAuthMethod;
  /** Exact-match list (SPEC authentication 5). */
  redirectUris: string[];
  /**
   * Space-separated scopes the client may be granted; anything beyond is refused (invalid_scope).
   * Your own scopes (e.g. `roles`) go here too, with `scopeClaims` saying what they release.
   */
  allowedScope: string;
  grantTypes: GrantType[];
  /**
   * SPEC first-party vs third-party table. Third-party (false): the consent page is shown, PKCE
   * is required, and tokens get the third-party lifetimes. First-party (true): no consent page,
   * PKCE optional for a confidential client, the first-party lifetimes.
   */
  firstParty: boolean;
  /** Display name on the consent page. */
  name: string;
  /**
   * OIDC Registration §2 id_token_signed_response_alg: the alg of this client's ID tokens, one the server signs with
   * (id_token_signing_alg_values_supported). Absent: the current key's (a registered client: RS256, the default there).
   */
  idTokenSignedResponseAlg?: SigningAlg;
  /**
   * JARM §3 authorization_signed_response_alg: the alg of this client's JARM response JWTs, one the server signs with.
   * Absent: RS256 (JARM's default) when the server signs with it, else its current key's (jarmSigningAlg).
   */
  authorizationSignedResponseAlg?: SigningAlg;
  /** Where RP-Initiated Logout may send the user back to (exact match, OIDC RP-Initiated Logout §2). */
  postLogoutRedirectUris?: string[];
  /** OIDC Back-Channel Logout §2.2: where a logout POSTs the client's logout token. */
  backchannelLogoutUri?: string;
  /** §2.2: whether the logout token must carry sid (the reference always sends it). */
  backchannelLogoutSessionRequired?: boolean;
  /** OIDC Front-Channel Logout §2: the URI the OP's logout page loads in an iframe. */
  frontchannelLogoutUri?: string;
  /** Front-Channel Logout §2: whether that URI gets iss and sid as query parameters. */
  frontchannelLogoutSessionRequired?: boolean;
  /**
   * private_key_jwt (RFC 7523, OIDC Core §9): the client's registered public keys. A client with
   * keys authenticates only with a client assertion signed by one of them; it has no secret.
   */
  jwks?: { keys: PublicJwk[] };
}

/** The standard claims the OIDC scopes release (OIDC Core §5.4); any may be left out. */
export interface StandardClaims {
  name?: string;
  family_name?: string;
  picture?: string;
  email?: string;
  email_verified?: boolean;
  address?: { formatted: string };
  phone_number?: string;
}

export interface UserConfig {
  username: string;
  password: string;
  sub: string;
  /**
   * The standard claims, and any of your own (`roles: ['admin']`, `groups: [...]`), released by
   * the scopes `ReferenceOptions.scopeClaims` names. Protocol claims (iss, sub, aud, exp, nonce…:
   * claim-shapes.ts PROTECTED_CLAIMS) cannot be set here.
   */
  claims: StandardClaims & { [claim: string]: unknown };
}

export interface ReferenceOptions {
  /** Fixed issuer. When absent, the issuer is http://{host}:{port} of the first listen(). */
  issuer?: string;
  /** Planted flaws to switch on (reference/flaws.ts). Never any by default. */
  flaws?: FlawName[];
  /**
   * Variants to switch on (reference/variants.ts): legitimate behaviours real products have, none by default.
   * The catalog's verdicts must not depend on them.
   */
  variants?: VariantName[];
  /** The `slow` variant's delay added to every response, in milliseconds (default 250). */
  slowMs?: number;
  /**
   * A list replaces the seeded clients; a record by role replaces (or, with null, removes) the
   * seeded client of each role named and keeps the others.
   */
  clients?: ClientConfig[] | Partial<Record<ClientRole, ClientConfig | null>>;
  /** Replaces the seeded user when given. */
  users?: UserConfig[];
  /** Seed also the legacy client (password and implicit grants); off by default. */
  legacyClient?: boolean;
  /**
   * The seeded confidential client's backchannel_logout_uri (OIDC Back-Channel Logout §2.2): where a logout POSTs
   * its logout token, e.g. the harness's receiver `http://127.0.0.1:PORT/backchannel-logout`. None by default.
   */
  backchannelLogoutUri?: string;
  signingAlg?: SigningAlg;
  /** Base of the device activation page; defaults to the issuer. */
  deviceAuthUrl?: string;
  /** Device polling interval in seconds (RFC 8628 §3.2); short values suit tests. */
  deviceInterval?: number;
  /** Seconds; each one given replaces its default (DEFAULT_LIFETIMES). */
  lifetimes?: Partial<Lifetimes>;
  /**
   * The base clock, epoch milliseconds (default Date.now). `server.clock` adds an offset tests can
   * move (`server.clock.advance(ms)`); every expiry reads the result.
   */
  now?: () => number;
  /**
   * Scopes of your own and the user claims each releases in the ID token and at userinfo, e.g.
   * `{ roles: ['roles'], groups: ['groups'] }`; a standard scope named here releases these claims
   * in addition to its own. Put the scope in the client's `allowedScope` too.
   */
  scopeClaims?: Readonly<Record<string, readonly string[]>>;
  /**
   * Shapes every access token's and ID token's claims before signing (ShapeClaims above).
   * It may add and change claims but never a protected one (iss, sub, aud, exp, iat, nonce, jti,
   * cnf…): such a token is refused with an error, never signed.
   */
  shapeClaims?: ShapeClaims;
  /**
   * For headless clients: GET /auth signs in the user with this username (and consents) without
   * showing the login page, and redirects with the code. Never on by default.
   */
  autoLogin?: string;
  /** Where codes, refresh tokens and revocations live; defaults to a MemoryStore. */
  store?: Store;
  /**
   * The longest one call of `store` may take (milliseconds, default 2000) before the request is answered 503 with
   * Retry-After, as when the store is unreachable (reference/store/outage.ts). Not used with the default store.
   */
  storeTimeoutMs?: number;
  /** Told once when `store` stops answering and once when it answers again (an operator's log line). */
  onStoreChange?(available: boolean, reason: string): void;
  /**
   * The signing keys; defaults to a fresh key of `signingAlg`. Several instances behind one load
   * balancer pass `await sharedKeySet(redisStore, alg)` so each verifies the others' tokens.
   */
  keys?: KeySet;
  /**
   * Expose the admin hooks (POST {issuer}/admin/{secret}/rotate-keys) that let a harness ask for a
   * key rotation (the jwks.rotation scenario). Off by default; never enable it on a shared server.
   */
  adminHooks?: boolean;
  /**
   * `fapi2`: the FAPI 2.0 Security Profile's server settings (reference/security-profile.ts):
   * PAR required, DPoP required, private_key_jwt only (assertion aud: the issuer alone).
   * The settings below override single parts of it.
   */
  profile?: 'fapi2';
  /** Refuse authorization requests that were not pushed (RFC 9126 §5, require_pushed_authorization_requests). */
  requirePushedAuthorizationRequests?: boolean;
  /** Seconds a pushed request_uri lives (RFC 9126 §2.2; default 60). */
  pushedRequestLifetime?: number;
  /** Refuse token requests without a DPoP proof (every access token sender-constrained). */
  requireDpop?: boolean;
  /** Resource indicators (RFC 8707) a token may be restricted to; default: DEFAULT_RESOURCES. */
  resources?: string[];
  /**
   * Dynamic client registration (RFC 7591) at POST {issuer}/register, with RFC 7592 management at
   * the registration_client_uri. `true` or `{}`: open registration; `{ initialAccessToken }`: only
   * with that Bearer token. Off by default (no registration_endpoint in discovery).
   */
  registration?: boolean | RegistrationOptions;
  /**
   * An OAuth 2.0 authorization server without OpenID Connect (`serve --oauth-only`): RFC 8414 metadata at
   * /.well-known/oauth-authorization-server only (no openid-configuration), no openid scope (the OIDC scopes are
   * taken out of every client's allowedScope), no ID tokens, no userinfo or end-session endpoint.
   */
  oauthOnly?: boolean;
  /**
   * An MCP authorization server and protected resource (`serve --mcp`, reference/mcp/): Client ID Metadata Documents
   * (a client_id that is an https URL), the protected resource `{origin}/mcp` with its RFC 9728 metadata at
   * `{origin}/.well-known/oauth-protected-resource/mcp`, and `{origin}/mcp` among the resources (RFC 8707).
   */
  mcp?: boolean;
  /**
   * A test switch (`serve --cimd-allow-loopback`): under `mcp`, a client metadata document may be fetched from an
   * http URL on a loopback address (127.0.0.1, [::1], localhost). Never for a real server.
   */
  cimdAllowLoopback?: boolean;
}

/**
 * `registration` of the reference options, with its defaults (reference/registration.ts). Here, not
 * there, so that context.ts needs nothing of registration.ts, which reads the context.
 */
export interface RegistrationSettings {
  /** POST /register needs `Authorization: Bearer <this>` (RFC 7591 §3); absent: open registration. */
  initialAccessToken?: string;
  /** Seconds a registered client lives: its client_secret_expires_at, then it is gone. */
  clientLifetime: number;
}

export interface RegistrationOptions {
  /** When set, a registration request needs `Authorization: Bearer <initialAccessToken>` (RFC 7591 §3). */
  initialAccessToken?: string;
  /** Seconds a registered client lives (its client_secret_expires_at); default 86400, at least 60. */
  clientLifetime?: number;
}

/** The scopes OpenID Connect defines (OIDC Core §5.4, §11): an OAuth-only server (oauthOnly) knows none of them. */
export const OIDC_SCOPES: readonly string[] = ['openid', 'profile', 'email', 'address', 'phone', 'offline_access'];

/** RFC 8707: the resource servers the reference issues audience-restricted tokens for, by default. */
export const DEFAULT_RESOURCES = ['https://api.example.test'];

export const SCOPES_SUPPORTED = [
  'openid',
  'profile',
  'email',
  'address',
  'phone',
  'offline_access',
  'api:read',
  'api:write',
] as const;

/** RFC 8628 §3.4: the device code grant's grant_type. */
export const DEVICE_GRANT = GRANT.device;
const EXCHANGE_GRANT = GRANT.exchange;

/** The seeded clients, keyed by the role (docs/target-config.md) each one plays. */
export const SEEDED_CLIENTS = {
  confidential: {
    clientId: 'web-app',
    clientSecret: 'web-app-secret-4f9c2a',
    redirectUris: ['https://web.example.test/callback'],
    postLogoutRedirectUris: ['https://web.example.test/logged-out'],
    // Never loaded by the harness: its scenario reads the URL the logout page would load.
    frontchannelLogoutUri: 'https://web.example.test/frontchannel-logout',
    frontchannelLogoutSessionRequired: true,
    allowedScope: 'openid profile email address phone offline_access api:read',
    grantTypes: ['authorization_code', 'refresh_token'],
    firstParty: true,
    name: 'Example Web App',
  },
  confidential2: {
    clientId: 'partner-app',
    clientSecret: 'partner-app-secret-7d1e5b',
    redirectUris: ['https://partner.example.test/callback'],
    postLogoutRedirectUris: ['https://partner.example.test/logged-out'],
    allowedScope: 'openid profile email offline_access',
    grantTypes: ['authorization_code', 'refresh_token'],
    firstParty: true,
    name: 'Example Partner App',
  },
  public: {
    clientId: 'spa',
    redirectUris: ['https://spa.example.test/callback'],
    postLogoutRedirectUris: ['https://spa.example.test/logged-out'],
    allowedScope: 'openid profile offline_access',
    grantTypes: ['authorization_code', 'refresh_token'],
    firstParty: false,
    name: 'Third-Party SPA',
  },
  machine: {
    clientId: 'machine',
    clientSecret: 'machine-secret-0b8e3c',
    redirectUris: [],
    allowedScope: 'api:read',
    grantTypes: ['client_credentials'],
    firstParty: true,
    name: 'Machine Client',
  },
  device: {
    clientId: 'tv-device',
    redirectUris: [],
    allowedScope: 'openid profile offline_access',
    grantTypes: [DEVICE_GRANT, 'refresh_token'],
    firstParty: true,
    name: 'Living Room TV',
  },
  exchange: {
    clientId: 'exchanger',
    clientSecret: 'exchanger-secret-9a6f1d',
    redirectUris: [],
    allowedScope: 'api:read api:write',
    grantTypes: [EXCHANGE_GRANT, 'client_credentials'],
    firstParty: true,
    name: 'Token Exchange Service',
  },
  keyed: {
    clientId: 'keyed-app',
    redirectUris: ['https://keyed.example.test/callback'],
    allowedScope: 'openid profile email offline_access api:read',
    grantTypes: ['authorization_code', 'refresh_token', 'client_credentials'],
    firstParty: true,
    name: 'Keyed App (private_key_jwt)',
    jwks: { keys: [(({ d: _d, ...pub }) => pub)(SEEDED_KEYED_PRIVATE_JWK)] },
  },
} satisfies Record<string, ClientConfig>;

export type ClientRole = keyof typeof SEEDED_CLIENTS;

/**
 * Seeded only with `legacyClient: true`: enables the deprecated password and implicit grants, and with the
 * authorization code grant the hybrid response types (OIDC Core §3.3).
 */
export const LEGACY_CLIENT: ClientConfig = {
  clientId: 'legacy-app',
  clientSecret: 'legacy-app-secret-2c7b9e',
  redirectUris: ['https://legacy.example.test/callback'],
  allowedScope: 'openid profile email',
  grantTypes: ['password', 'implicit', 'authorization_code'],
  firstParty: true,
  name: 'Legacy App',
};

/** The role a client plays in the harness's target config: a seeded role, or `legacy`. */
export type TargetRole = OneOfTheConfigRoles<ClientRole | 'legacy'>;
/** Every role the reference seeds is one the target config knows (protocol/client-roles.ts). */
type OneOfTheConfigRoles<T extends ConfigRole> = T;

/** A client as the server knows it: its configuration and, for seeded or by-role clients, its role. */
export type RegisteredClient = ClientConfig & {
  role?: TargetRole;
  /** A client of a Client ID Metadata Document (reference/mcp/cimd.ts): its client_id is the document's URL. */
  metadataDocument?: { anyRedirectUri: boolean };
};

/** A client without a secret and without registered keys (RFC 6749 §2.1): public. */
export const isPublicClient = (client: ClientConfig): boolean =>
  client.clientSecret === undefined && client.jwks === undefined;

/** Whether the client may use the grant (its grantTypes name it). */
export function clientEnables(client: Pick<ClientConfig, 'grantTypes'>, grantType: string): boolean {
  return client.grantTypes.some((grant) => grant === grantType);
}

/** Whether any client may use the grant; discovery advertises the deprecated grants only then. */
export function someClientEnables(clients: readonly ClientConfig[], grantType: string): boolean {
  return clients.some((client) => clientEnables(client, grantType));
}
