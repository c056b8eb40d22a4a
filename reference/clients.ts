/**
 * The clients a reference server runs with: the seeded ones by role (options.ts), those the options
 * give, replace or remove, the legacy client when asked for, the FAPI 2.0 profile's keyed second
 * client, and on an OAuth-only server every client without the OpenID Connect scopes; each
 * client_id once, a pinned authentication method consistent with its secret.
 */
import {
  type ClientConfig,
  type ClientRole,
  LEGACY_CLIENT,
  OIDC_SCOPES,
  type ReferenceOptions,
  type RegisteredClient,
  SEEDED_CLIENTS,
} from './options.ts';
import { SEEDED_PARTNER_PRIVATE_JWK } from './seeded-keys.ts';

/** The OAuth scope a seeded client keeps on an OAuth-only server when it had only OIDC scopes. */
const OAUTH_ONLY_SCOPE = 'api:read';

/** The clients a server runs with, from the seeded ones and the options. */
export function resolveClients(
  options: Pick<ReferenceOptions, 'clients' | 'legacyClient' | 'profile' | 'oauthOnly' | 'backchannelLogoutUri'>,
): RegisteredClient[] {
  const given = options.clients;
  let clients: RegisteredClient[];
  if (Array.isArray(given)) {
    clients = [...given];
  } else {
    const seeded: Record<string, ClientConfig> = { ...SEEDED_CLIENTS };
    const back = options.backchannelLogoutUri;
    if (back !== undefined && !(URL.canParse(back) && ['http:', 'https:'].includes(new URL(back).protocol)))
      throw new Error(`backchannelLogoutUri "${back}" must be an absolute http(s) URL`);
    if (back !== undefined)
      seeded.confidential = {
        ...SEEDED_CLIENTS.confidential,
        backchannelLogoutUri: back,
        backchannelLogoutSessionRequired: true,
      };
    if (options.profile === 'fapi2') {
      // FAPI 2.0 allows no client secret: the seeded second confidential client signs assertions.
      const { clientSecret: _secret, ...partner } = SEEDED_CLIENTS.confidential2;
      // The public part, without alg: the algorithms this server accepts decide (seeded-keys.ts).
      const { kty, kid, n, e } = SEEDED_PARTNER_PRIVATE_JWK;
      const publicJwk = { kty, kid, n, e };
      seeded.confidential2 = { ...partner, jwks: { keys: [publicJwk] } };
    }
    const byRole: Record<string, ClientConfig | null | undefined> = { ...seeded, ...given };
    clients = Object.entries(byRole).flatMap(([role, client]) =>
      client ? [{ ...client, role: role as ClientRole }] : [],
    );
  }
  if (options.legacyClient) clients.push({ ...LEGACY_CLIENT, role: 'legacy' });
  if (options.oauthOnly) clients = clients.map(withoutOidcScopes);
  const ids = new Set<string>();
  for (const client of clients) {
    const pinned = client.tokenEndpointAuthMethod;
    if (pinned !== undefined && (pinned === 'none') !== (client.clientSecret === undefined)) {
      throw new Error(
        `client "${client.clientId}": ` +
          `tokenEndpointAuthMethod ${pinned} ` +
          `${pinned === 'none' ? 'is for a client without a secret' : 'needs a clientSecret'}`,
      );
    }
    if (ids.has(client.clientId)) throw new Error(`duplicate client_id "${client.clientId}" in the reference options`);
    ids.add(client.clientId);
  }
  return clients;
}

/**
 * The client on an OAuth-only server: its allowedScope without the OIDC scopes; a client left with none gets
 * OAUTH_ONLY_SCOPE (a code flow needs a scope to grant; the API scope it lacks is one to escalate to), and the
 * confidential one both API scopes (a refresh can then ask for less than it was granted).
 */
function withoutOidcScopes(client: RegisteredClient): RegisteredClient {
  const kept = client.allowedScope.split(' ').filter((s) => s && !OIDC_SCOPES.includes(s));
  const scope =
    client.role === 'confidential'
      ? [...new Set([...kept, 'api:read', 'api:write'])]
      : kept.length
        ? kept
        : [OAUTH_ONLY_SCOPE];
  return { ...client, allowedScope: scope.join(' ') };
}
