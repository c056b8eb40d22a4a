/**
 * The target config (docs/target-config.md) that points the harness at a reference server: its issuer,
 * its clients by role (the legacy client, when seeded, as role `legacy`), the user and the auto
 * login driver (what a user writes for any IdP: a page that needs scripts, such as a script-rendered
 * login or a form_post page, goes on in Chromium). `serve --target-out` writes it; the embedded run
 * uses it in-process.
 */
import type { ClientAuthMethod, RegisteredClient, TargetRole, UserConfig } from './options.ts';
import { SEEDED_PRIVATE_JWKS } from './seeded-keys.ts';
import { rotateKeysHookUrl } from './endpoints/admin.ts';
import type { ReferenceServer } from './server.ts';
import { mcpResourceOf } from './security-profile.ts';

export interface TargetClient {
  clientId: string;
  clientSecret?: string;
  redirectUri?: string;
  scope: string;
  authMethod: ClientAuthMethod;
  firstParty: boolean;
  /** Where RP-Initiated Logout may return the user (the first registered one). */
  postLogoutRedirectUri?: string;
  /** OIDC Back-Channel Logout §2.2: where the harness listens for the logout token. */
  backchannelLogoutUri?: string;
  /** OIDC Front-Channel Logout §2: the URI the logged-out page frames (never loaded by the harness). */
  frontchannelLogoutUri?: string;
  /** private_key_jwt: the seeded keyed client's private key (test-only, like the seeded secrets). */
  privateJwk?: (typeof SEEDED_PRIVATE_JWKS)[number];
  /** A resource indicator (RFC 8707) the server knows. */
  resource?: string;
}

export interface TargetConfig {
  issuer: string;
  tokenRequestEncoding: 'form' | 'json';
  clients: Partial<Record<TargetRole, TargetClient>>;
  user: Pick<UserConfig, 'username' | 'password'>;
  /** The server's other users (`serve --users N`): the harness acts as each at once (one lane per user). */
  users?: Pick<UserConfig, 'username' | 'password'>[];
  /** The auto driver (the default for any IdP): over HTTP, in Chromium from a page that needs scripts. */
  login: { driver: 'auto' };
  expectedFailures: string[];
  /** Only when the server runs with admin hooks: the URL the harness POSTs to for a key rotation. */
  hooks?: { rotateKeys: string };
  /**
   * Only when registration needs an initial access token (`serve --registration-token`): the token, so that the
   * registration scenarios send it (the clients above are configured, so the run registers none of its own).
   */
  registration?: { enabled: false; initialAccessToken: string };
  /** The server's authorization code lifetime (lifetimes.authorizationCode): what code.lifetime waits out. */
  codeLifetimeSeconds?: number;
  /** Only under `mcp`: the protected MCP endpoint (RFC 9728) and another resource this server knows (RFC 8707). */
  resource?: { url: string; otherResource: string };
}

export function targetConfig(server: ReferenceServer): TargetConfig {
  const { clients, users } = server.context;
  const user = users[0];
  if (!user) throw new Error('the reference server has no user to log in with');
  const rotateKeys = rotateKeysHookUrl(server.context);
  const initialAccessToken = server.context.registration?.initialAccessToken;
  const byRole: Partial<Record<TargetRole, TargetClient>> = {};
  for (const client of clients) {
    if (!client.role) continue;
    const redirectUri = client.redirectUris[0];
    const postLogoutRedirectUri = client.postLogoutRedirectUris?.[0];
    byRole[client.role] = {
      clientId: client.clientId,
      ...(client.clientSecret === undefined ? {} : { clientSecret: client.clientSecret }),
      ...(redirectUri === undefined ? {} : { redirectUri }),
      scope: client.allowedScope,
      authMethod:
        client.tokenEndpointAuthMethod ??
        (client.clientSecret !== undefined ? 'client_secret_basic' : client.jwks ? 'private_key_jwt' : 'none'),
      firstParty: client.firstParty,
      ...(postLogoutRedirectUri === undefined ? {} : { postLogoutRedirectUri }),
      ...(client.backchannelLogoutUri === undefined ? {} : { backchannelLogoutUri: client.backchannelLogoutUri }),
      ...(client.frontchannelLogoutUri === undefined ? {} : { frontchannelLogoutUri: client.frontchannelLogoutUri }),
      ...privateKeyOf(client),
      ...(client.role === 'machine' && server.context.security.resources[0]
        ? { resource: server.context.security.resources[0] }
        : {}),
    };
  }
  return {
    issuer: server.issuer,
    tokenRequestEncoding: 'form',
    clients: byRole,
    user: { username: user.username, password: user.password },
    ...(users.length > 1 ? { users: users.slice(1).map((u) => ({ username: u.username, password: u.password })) } : {}),
    login: { driver: 'auto' },
    expectedFailures: [],
    codeLifetimeSeconds: server.context.lifetimes.authorizationCode,
    ...(rotateKeys === undefined ? {} : { hooks: { rotateKeys } }),
    ...(initialAccessToken === undefined ? {} : { registration: { enabled: false, initialAccessToken } }),
    ...(server.context.options.mcp ? { resource: mcpResourceSection(server) } : {}),
  };
}

/** The MCP endpoint (`{origin}/mcp`) and the first other resource (DEFAULT_RESOURCES: https://api.example.test). */
function mcpResourceSection(server: ReferenceServer): { url: string; otherResource: string } {
  const url = mcpResourceOf(server.issuer);
  const other = server.context.security.resources.find((resource) => resource !== url);
  if (other === undefined) throw new Error('the reference knows no resource besides its MCP endpoint');
  return { url, otherResource: other };
}

/** The seeded private key of a client that registered one of the seeded public keys (only the seed knows them). */
function privateKeyOf(client: RegisteredClient): Pick<TargetClient, 'privateJwk'> {
  const seeded = SEEDED_PRIVATE_JWKS.find((jwk) =>
    client.jwks?.keys.some((key) => key.kid === jwk.kid && (jwk.kty === 'RSA' ? key.n === jwk.n : key.x === jwk.x)),
  );
  return seeded ? { privateJwk: { ...seeded } } : {};
}
