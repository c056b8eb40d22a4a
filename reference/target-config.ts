/**
 * The target config (DESIGN §4) that points the harness at a reference server: its issuer,
 * its clients by role (the legacy client, when seeded, as role `legacy`), the user and the form
 * login driver. `serve --target-out` writes it;
 * the embedded run uses it in-process.
 */
import type { ClientAuthMethod, TargetRole, UserConfig } from './options.ts';
import type { ReferenceServer } from './server.ts';

export interface TargetClient {
  clientId: string;
  clientSecret?: string;
  redirectUri?: string;
  scope: string;
  authMethod: ClientAuthMethod;
  firstParty: boolean;
}

export interface TargetConfig {
  issuer: string;
  tokenRequestEncoding: 'form' | 'json';
  clients: Partial<Record<TargetRole, TargetClient>>;
  user: Pick<UserConfig, 'username' | 'password'>;
  login: { driver: 'form' };
  expectedFailures: string[];
}

export function targetConfig(server: ReferenceServer): TargetConfig {
  const { clients, users } = server.context;
  const user = users[0];
  if (!user) throw new Error('the reference server has no user to log in with');
  const byRole: Partial<Record<TargetRole, TargetClient>> = {};
  for (const client of clients) {
    if (!client.role) continue;
    const redirectUri = client.redirectUris[0];
    byRole[client.role] = {
      clientId: client.clientId,
      ...(client.clientSecret === undefined ? {} : { clientSecret: client.clientSecret }),
      ...(redirectUri === undefined ? {} : { redirectUri }),
      scope: client.allowedScope,
      authMethod: client.tokenEndpointAuthMethod ?? (client.clientSecret === undefined ? 'none' : 'client_secret_basic'),
      firstParty: client.firstParty,
    };
  }
  return {
    issuer: server.issuer,
    tokenRequestEncoding: 'form',
    clients: byRole,
    user: { username: user.username, password: user.password },
    login: { driver: 'form' },
    expectedFailures: [],
  };
}
