/**
 * A test fixture: oidc-provider 9 (panva's OpenID Certified implementation, which this project
 * does not control) started in-process on 127.0.0.1, configured soundly, with a docs/target-config.md target
 * config for it — so the harness can be pointed at an independent IdP.
 *
 * Configuration decisions (each differs from oidc-provider's quick-start defaults on purpose):
 * - Only response_type=code; PKCE is required for every client (pkce.required → true) and v9
 *   supports only S256 (code_challenge_methods_supported: ["S256"], plain is refused).
 * - Refresh tokens rotate on every use (rotateRefreshToken: true); a rotated token keeps the
 *   family's remaining lifetime. oidc-provider revokes the whole grant when a rotated-out token
 *   is replayed. Refresh tokens are issued only when the client may use the refresh_token grant
 *   and the grant holds offline_access. At /auth oidc-provider follows OIDC Core §11: it drops
 *   offline_access unless prompt=consent is sent, so a code flow that wants a refresh token must
 *   send prompt=consent (the device authorization endpoint has no prompt and keeps it). This
 *   holds for the public client too: it gets (rotating) refresh tokens under the same rule.
 * - Consent is asked of every client (oidc-provider has no first-party notion); the target
 *   config still marks firstParty as the reference's seeded clients do, and the third-party
 *   client gets the reference's shorter lifetimes, so every first/third-party rule holds.
 * - Login: devInteractions' built-in pages (plain server-rendered forms: inputs `login` and
 *   `password`, then a consent form with a "Continue" button). They accept any login name and
 *   never check the password; findAccount knows only `alice`, so no other account can finish a
 *   login (another name ends on oidc-provider's server_error page, logged to console.error).
 *   The target's password is therefore a placeholder.
 * - Access tokens bound to the userinfo endpoint (every flow with openid) are opaque, as
 *   oidc-provider always makes them. client_credentials tokens are issued for one API resource
 *   server (RFC 8707 default resource `API_RESOURCE`, scopes api:read api:write) and are opaque
 *   by default — oidc-provider refuses to introspect or revoke JWT access tokens
 *   (unsupported_token_type) — or RFC 9068 JWTs with `apiAccessTokenFormat: 'jwt'`.
 * - Scope-requested claims go to userinfo only, never into an ID token issued next to an access
 *   token (conformIdTokenClaims, OIDC Core §5.4). api:read and api:write are registered scopes,
 *   so a client asking for one outside its registered `scope` gets invalid_scope at /auth and at
 *   the token endpoint (oidc-provider silently ignores scopes it does not know at all).
 * - A keyed client (private_key_jwt, an ES256 key made per start) and PAR and DPoP, which
 *   oidc-provider offers by default; the machine client names the API as its resource (RFC 8707).
 * - `requestObjects: true` turns on request objects by value (RFC 9101), signed with the client's key or not.
 *   No acrValues: devInteractions' login records no authentication class, so an essential acr could never be met
 *   (the login page comes back after every sign-in) and step-up.acr could not judge it.
 * - Introspection answers only confidential clients; a client may revoke only its own tokens.
 * - Pages: X-Frame-Options DENY and CSP frame-ancestors 'none' on every response, added by
 *   a middleware here — the one thing the fixture adds to oidc-provider's own HTTP behaviour; it
 *   leaves such headers to whoever deploys it.
 * - Token exchange (RFC 8693) is left out: oidc-provider has none built in, and a grant written
 *   here with registerGrantType would test our code, not the independent implementation's. The
 *   target has no `exchange` client, so the token-exchange scenarios skip for that reason.
 * - JARM (features.jwtResponseModes) is on: response_mode jwt, query.jwt, fragment.jwt and form_post.jwt, the
 *   response JWT signed with the provider's key (jarm.signed-response judges it against an independent implementation).
 * - Back-channel logout (features.backchannelLogout) is on: the confidential client's backchannel_logout_uri is a
 *   free loopback port per start, where logout.back-channel listens; oidc-provider's protection against requests to
 *   special-use addresses (SSRF) is lifted for http://127.0.0.1 only (the `fetch` helper). oidc-provider 9 has no
 *   front-channel logout.
 * - Storage: interop/oidc-provider/adapter.ts (unbounded, atomic consume) instead of the
 *   development-only MemoryAdapter (a 1000-entry LRU). Keys: a fresh RS256 key per start, not the
 *   development keys; fresh cookie keys and client secrets too.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { exportJWK, generateKeyPair } from 'jose';
import type Provider from 'oidc-provider';
import type { Account, KoaContextWithOIDC, ProviderClient } from 'oidc-provider';
import { unusedLoopbackPort } from '../../harness/http/ports.ts';
import { portOf } from '../support.ts';
import { createAtomicMemoryAdapter } from './adapter.ts';

/** The resource server client_credentials tokens are issued for (RFC 8707 resource indicator). */
export const API_RESOURCE = 'https://api.example.test/';
const API_SCOPE = 'api:read api:write';
const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/**
 * docs/target-config.md's target config, as harness/config/load.ts validates it (strict: no other fields). Kept
 * here until the harness's own type can be imported.
 */
export interface TargetClient {
  clientId: string;
  clientSecret?: string;
  redirectUri?: string;
  scope?: string;
  authMethod?: 'client_secret_basic' | 'client_secret_post' | 'none' | 'private_key_jwt';
  firstParty?: boolean;
  postLogoutRedirectUri?: string;
  /** OIDC Back-Channel Logout: where the harness listens for the logout token (a free loopback port per start). */
  backchannelLogoutUri?: string;
  /** private_key_jwt: the keyed client's private JWK (generated per start). */
  privateJwk?: { kty: 'EC'; crv: string; x: string; y: string; d: string; kid: string; alg: string };
  /** A resource indicator (RFC 8707) the provider knows. */
  resource?: string;
}

export type ClientRole = 'confidential' | 'confidential2' | 'public' | 'machine' | 'device' | 'exchange' | 'keyed';

export interface TargetConfig {
  issuer: string;
  tokenRequestEncoding: 'form' | 'json';
  clients: Partial<Record<ClientRole, TargetClient>>;
  user: { username: string; password: string };
  /** No driver named: auto, the default. */
  login: { driver?: 'auto' | 'form' | 'browser'; usernameField: string; passwordField: string };
  expectedFailures: string[];
}

export interface OidcProviderOptions {
  /** Format of the API resource's (client_credentials) access tokens; default 'opaque'. */
  apiAccessTokenFormat?: 'opaque' | 'jwt';
  /** Print oidc-provider's development notices too (errors are always printed). */
  verbose?: boolean;
  /** Port on 127.0.0.1 (default 0: any free port). */
  port?: number;
  /**
   * Accept the authorization request by POST (OIDC Core §3.1.2.1 MUST). oidc-provider leaves it
   * off by default and allows it only with SameSite=None cookies, which a browser drops over plain
   * http: so it is for the HTTP-only runs, never for Chromium against this http fixture.
   */
  authorizationPost?: boolean;
  /**
   * Dynamic client registration (RFC 7591, oidc-provider's features.registration) with its management (RFC 7592,
   * features.registrationManagement): open (true) or behind an initial access token.
   */
  registration?: boolean | { initialAccessToken: string };
  /**
   * Authentication context classes the login claims to meet (oidc-provider's acrValues: acr_values_supported and the
   * ID token's acr); default none, so step-up.acr skips for acr_values_supported.
   */
  acrValues?: string[];
  /** Request objects by value (features.requestObjects, RFC 9101): off by default, as in oidc-provider. */
  requestObjects?: boolean;
}

export interface StartedOidcProvider {
  issuer: string;
  target: TargetConfig;
  provider: Provider;
  /** The client_ids of the dynamically registered clients the provider holds now (not the fixture's own). */
  registeredClients(): string[];
  close(): Promise<void>;
}

/** One registered client: the oidc-provider metadata and what the target config says of it. */
interface FixtureClient {
  role: Exclude<ClientRole, 'exchange'>;
  metadata: Record<string, unknown> & { client_id: string; client_secret?: string };
  target: TargetClient;
}

/** The reference's seeded person, copied: the fixture must not import reference/. */
const USER = {
  username: 'alice',
  claims: {
    name: 'Alice Liddell',
    family_name: 'Liddell',
    picture: 'https://idp.example.test/avatars/alice.png',
    email: 'alice@example.test',
    email_verified: true,
    address: { formatted: '1 Rabbit Hole Lane, Oxford, UK' },
    phone_number: '+44 1865 000000',
  },
};

/** Lifetimes in seconds, first-party vs third-party as in the reference's defaults. */
const TTL = {
  accessToken: { firstParty: 3600, thirdParty: 600 },
  refreshToken: { firstParty: 30 * 24 * 3600, thirdParty: 24 * 3600 },
  authorizationCode: 60,
  idToken: 3600,
  deviceCode: 600,
  interaction: 3600,
  session: 14 * 24 * 3600,
  grant: 30 * 24 * 3600,
};

function secret(): string {
  return randomBytes(24).toString('base64url');
}

function fixtureClients(backchannelLogoutUri: string): FixtureClient[] {
  const confidential = (
    role: 'confidential' | 'confidential2',
    clientId: string,
    redirectUri: string,
    allowedScope: string,
  ): FixtureClient => {
    const clientSecret = secret();
    const postLogoutRedirectUri = redirectUri.replace(/\/callback$/, '/logged-out');
    // OIDC Back-Channel Logout §2.2: the first client's logout token goes to the harness's receiver.
    const backchannel = role === 'confidential' ? backchannelLogoutUri : undefined;
    return {
      role,
      metadata: {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        post_logout_redirect_uris: [postLogoutRedirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
        scope: allowedScope,
        ...(backchannel === undefined
          ? {}
          : { backchannel_logout_uri: backchannel, backchannel_logout_session_required: true }),
      },
      target: {
        clientId,
        clientSecret,
        redirectUri,
        scope: 'openid profile email offline_access',
        authMethod: 'client_secret_basic',
        firstParty: true,
        postLogoutRedirectUri,
        ...(backchannel === undefined ? {} : { backchannelLogoutUri: backchannel }),
      },
    };
  };
  const machineSecret = secret();
  return [
    confidential(
      'confidential',
      'web-app',
      'https://web.example.test/callback',
      'openid profile email address phone offline_access api:read',
    ),
    confidential(
      'confidential2',
      'partner-app',
      'https://partner.example.test/callback',
      'openid profile email offline_access',
    ),
    {
      role: 'public',
      metadata: {
        client_id: 'spa',
        redirect_uris: ['https://spa.example.test/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        scope: 'openid profile offline_access',
      },
      target: {
        clientId: 'spa',
        redirectUri: 'https://spa.example.test/callback',
        scope: 'openid profile',
        authMethod: 'none',
        firstParty: false,
      },
    },
    {
      role: 'machine',
      metadata: {
        client_id: 'machine',
        client_secret: machineSecret,
        redirect_uris: [],
        grant_types: ['client_credentials'],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_basic',
        scope: 'api:read',
      },
      target: {
        clientId: 'machine',
        clientSecret: machineSecret,
        scope: 'api:read',
        authMethod: 'client_secret_basic',
        firstParty: true,
        resource: API_RESOURCE,
      },
    },
    keyedClient(),
    {
      role: 'device',
      metadata: {
        client_id: 'tv-device',
        redirect_uris: [],
        grant_types: [DEVICE_CODE_GRANT, 'refresh_token'],
        response_types: [],
        token_endpoint_auth_method: 'none',
        application_type: 'native',
        scope: 'openid profile offline_access',
      },
      target: { clientId: 'tv-device', scope: 'openid offline_access', authMethod: 'none', firstParty: true },
    },
  ];
}

/** A private_key_jwt client (RFC 7523, OIDC Core §9) with an ES256 key made for this start. */
function keyedClient(): FixtureClient {
  const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }) as {
    crv: string;
    x: string;
    y: string;
    d: string;
  };
  const privateJwk = { kty: 'EC' as const, crv: jwk.crv, x: jwk.x, y: jwk.y, d: jwk.d, kid: 'keyed-1', alg: 'ES256' };
  const { d: _d, ...publicJwk } = privateJwk;
  return {
    role: 'keyed',
    metadata: {
      client_id: 'keyed-app',
      redirect_uris: ['https://keyed.example.test/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'private_key_jwt',
      token_endpoint_auth_signing_alg: 'ES256',
      jwks: { keys: [publicJwk] },
      scope: 'openid profile email offline_access',
    },
    target: {
      clientId: 'keyed-app',
      redirectUri: 'https://keyed.example.test/callback',
      scope: 'openid profile email offline_access',
      authMethod: 'private_key_jwt',
      firstParty: true,
      privateJwk,
    },
  };
}

/** The notices oidc-provider prints about quick-start settings; `verbose` keeps them. */
const DEV_NOTICES = [
  /^oidc-provider WARNING: Unsupported runtime/,
  /^oidc-provider WARNING: a quick start development-only feature devInteractions/,
  /^oidc-provider NOTICE: default .* function called, you SHOULD change it/,
];

let noticeFilterInstalled = false;

/**
 * Drops oidc-provider's development notices from console.warn / console.info, once per process.
 * Everything else (and console.error, where its server errors go) passes through unchanged. The
 * dropped "Unsupported runtime" warning is oidc-provider 9 preferring Node 22: it runs on 20.
 */
function filterDevNotices(): void {
  if (noticeFilterInstalled) return;
  noticeFilterInstalled = true;
  for (const method of ['warn', 'info'] as const) {
    const original = console[method].bind(console);
    console[method] = (...args: unknown[]) => {
      const [first] = args;
      if (typeof first === 'string' && DEV_NOTICES.some((re) => re.test(first))) return;
      original(...args);
    };
  }
}

interface Grantable {
  scopes: Set<string>;
}
interface RotatedToken {
  remainingTTL: number;
}
interface TokenOwner {
  clientId: string;
}

export async function startOidcProvider(opts: OidcProviderOptions = {}): Promise<StartedOidcProvider> {
  if (!opts.verbose) filterDevNotices();
  // Imported here, after the filter, because oidc-provider prints its runtime notice on import.
  const { default: ProviderClass, errors } = await import('oidc-provider');

  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = portOf(server);
  const issuer = `http://127.0.0.1:${port}`;

  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingKey = {
    ...(await exportJWK(privateKey)),
    kid: `rs256-${secret().slice(0, 8)}`,
    alg: 'RS256',
    use: 'sig',
  };

  const clients = fixtureClients(`http://127.0.0.1:${await unusedLoopbackPort()}/backchannel-logout`);
  const thirdParty = new Set(clients.filter((c) => c.target.firstParty === false).map((c) => c.metadata.client_id));
  const lifetime = (pair: { firstParty: number; thirdParty: number }, client: ProviderClient | undefined) =>
    client && thirdParty.has(client.clientId) ? pair.thirdParty : pair.firstParty;

  const account: Account = {
    accountId: USER.username,
    claims: () => ({ sub: USER.username, ...USER.claims }),
  };

  const adapter = createAtomicMemoryAdapter({
    alreadyConsumed: (model) => new errors.InvalidGrant(`${model} already consumed`),
  });
  const registration = opts.registration;
  const provider = new ProviderClass(issuer, {
    adapter,
    // oidc-provider refuses outgoing requests to special-use addresses (loopback included: SSRF protection, its
    // `dispatcher`); the harness's back-channel logout receiver is on loopback (for the fixture's client and for one
    // a zero-config run registers), so http://127.0.0.1 is let through, nothing else.
    fetch: (url: URL | string, options: RequestInit & { dispatcher?: unknown }) => {
      const { dispatcher, ...rest } = options;
      const loopback = new URL(String(url)).origin.startsWith('http://127.0.0.1:');
      return globalThis.fetch(url, loopback ? rest : ({ ...rest, dispatcher } as RequestInit));
    },
    clients: clients.map((c) => c.metadata),
    jwks: { keys: [signingKey] },
    // OIDC Core §3.1.2.1: the authorization endpoint MUST take POST too (opts.authorizationPost).
    enableHttpPostMethods: opts.authorizationPost === true,
    cookies: { keys: [secret(), secret()], ...(opts.authorizationPost ? { long: { sameSite: 'none' } } : {}) },
    findAccount: (_ctx: KoaContextWithOIDC, sub: string) => (sub === USER.username ? account : undefined),
    scopes: ['openid', 'offline_access', 'profile', 'email', 'address', 'phone', 'api:read', 'api:write'],
    claims: {
      openid: ['sub'],
      profile: ['name', 'family_name', 'picture'],
      email: ['email', 'email_verified'],
      address: ['address'],
      phone: ['phone_number'],
    },
    conformIdTokenClaims: true,
    ...(opts.acrValues ? { acrValues: opts.acrValues } : {}),
    responseTypes: ['code'],
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none', 'private_key_jwt'],
    allowOmittingSingleRegisteredRedirectUri: false,
    pkce: { required: () => true },
    rotateRefreshToken: true,
    issueRefreshToken: async (_ctx: KoaContextWithOIDC, client: ProviderClient, source: Grantable) =>
      client.grantTypeAllowed('refresh_token') && source.scopes.has('offline_access'),
    ttl: {
      AccessToken: (_ctx: KoaContextWithOIDC, _token: unknown, client: ProviderClient) =>
        lifetime(TTL.accessToken, client),
      ClientCredentials: (_ctx: KoaContextWithOIDC, _token: unknown, client: ProviderClient) =>
        lifetime(TTL.accessToken, client),
      RefreshToken: (ctx: KoaContextWithOIDC | undefined, _token: unknown, client: ProviderClient) => {
        const rotated = ctx?.oidc.entities.RotatedRefreshToken as RotatedToken | undefined;
        return rotated ? rotated.remainingTTL : lifetime(TTL.refreshToken, client);
      },
      AuthorizationCode: TTL.authorizationCode,
      IdToken: TTL.idToken,
      DeviceCode: TTL.deviceCode,
      Interaction: TTL.interaction,
      Session: TTL.session,
      Grant: TTL.grant,
    },
    features: {
      ...(registration
        ? {
            registration: {
              enabled: true,
              ...(typeof registration === 'object' ? { initialAccessToken: registration.initialAccessToken } : {}),
            },
            registrationManagement: { enabled: true },
          }
        : {}),
      devInteractions: { enabled: true },
      // OIDC Back-Channel Logout 1.0 (oidc-provider 9 has no front-channel logout any more).
      backchannelLogout: { enabled: true },
      ...(opts.requestObjects ? { requestObjects: { enabled: true } } : {}),
      claimsParameter: { enabled: true },
      // JARM (response_mode jwt, query.jwt, fragment.jwt, form_post.jwt): responses signed with the provider's key.
      jwtResponseModes: { enabled: true },
      deviceFlow: { enabled: true },
      clientCredentials: { enabled: true },
      userinfo: { enabled: true },
      introspection: {
        enabled: true,
        allowedPolicy: async (_ctx: KoaContextWithOIDC, client: ProviderClient) => client.clientAuthMethod !== 'none',
      },
      revocation: {
        enabled: true,
        // oidc-provider's default, made explicit: only the token's own client may revoke it.
        allowedPolicy: async (_ctx: KoaContextWithOIDC, client: ProviderClient, token: TokenOwner) => {
          if (token.clientId === client.clientId) return true;
          if (client.clientAuthMethod === 'none') return false;
          throw new errors.InvalidRequest('client is not authorized to revoke the presented token');
        },
      },
      resourceIndicators: {
        enabled: true,
        // Only client_credentials defaults to the API; flows with openid stay userinfo-bound.
        defaultResource: async (ctx: KoaContextWithOIDC, _client: ProviderClient, oneOf?: string[]) => {
          if (oneOf) return oneOf;
          const grantType = ctx.oidc.params?.grant_type;
          return ctx.oidc.route === 'token' && grantType === 'client_credentials' ? API_RESOURCE : undefined;
        },
        useGrantedResource: async () => false,
        getResourceServerInfo: async (_ctx: KoaContextWithOIDC, resourceIndicator: string) => {
          if (resourceIndicator !== API_RESOURCE) throw new errors.InvalidTarget();
          return {
            scope: API_SCOPE,
            audience: API_RESOURCE,
            accessTokenFormat: opts.apiAccessTokenFormat ?? 'opaque',
            ...(opts.apiAccessTokenFormat === 'jwt' ? { jwt: { sign: { alg: 'RS256' } } } : {}),
          };
        },
      },
    },
  });
  provider.on('server_error', (_ctx, error) => console.error('oidc-provider server_error:', error));
  // Anti-framing on every response, pages included (login, consent, device, error, form_post).
  // oidc-provider leaves these headers to the deployment (helmet or a proxy in front of it), and
  // RFC 9700 §4.16 makes preventing clickjacking the authorization server's duty. Set before the
  // provider runs, as helmet does, so oidc-provider can still extend the CSP it finds.
  provider.use(async (ctx, next) => {
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Content-Security-Policy', "frame-ancestors 'none'");
    await next();
  });
  server.on('request', provider.callback());

  const target: TargetConfig = {
    issuer,
    tokenRequestEncoding: 'form',
    clients: Object.fromEntries(clients.map((c) => [c.role, c.target])),
    // devInteractions accept any password; findAccount only knows alice.
    user: { username: USER.username, password: 'any-password' },
    login: { usernameField: 'login', passwordField: 'password' },
    expectedFailures: [],
  };

  return {
    issuer,
    target,
    provider,
    registeredClients: () => adapter.ids('Client'),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
