/** Choosing among the configured clients at run time. */
import { type Client, type ClientRole, GRANT, type ScenarioContext } from '../../harness/scenario/scenario.ts';

/** The code-flow clients (a redirect URI), in the order scenarios prefer them. */
export const CODE_FLOW_ROLES: readonly ClientRole[] = ['public', 'confidential', 'confidential2'];

/** The first configured role of `roles` whose client passes `test`. */
export function findClient(
  ctx: ScenarioContext,
  roles: readonly ClientRole[],
  test: (c: Client) => boolean = () => true,
): Client | undefined {
  for (const role of roles) {
    const client = ctx.clients[role];
    if (client && test(client)) return client;
  }
  return undefined;
}

/** A code-flow client marked first-party (`true`) or third-party (`false`) in the config. */
export function partyClient(ctx: ScenarioContext, firstParty: boolean): Client | undefined {
  return findClient(ctx, CODE_FLOW_ROLES, (c) => c.firstParty === firstParty && !!c.redirectUri);
}

/** Two different code-flow clients: the one a grant is issued to, and another that presents it. */
export interface ClientPair {
  owner: ClientRole;
  other: ClientRole;
  /** Whether `other` is a public client (no authentication: the server knows it by the request's client_id). */
  otherIsPublic: boolean;
}

/**
 * The pair a binding check uses (RFC 6749 §4.1.3, §10.4): the server knows a confidential client by its
 * authentication and a public one by the request's `client_id`, so any two different clients show the binding —
 * `confidential` and `confidential2` when both are configured, else a confidential client and the public one (in
 * whichever order the config allows). Fewer than two: skipped, naming the clients that would do.
 */
export function clientPair(ctx: ScenarioContext): ClientPair {
  const usable = (role: ClientRole) => !!ctx.clients[role]?.redirectUri;
  const owner = (['confidential', 'public', 'confidential2'] as const).find(usable);
  const other = (['confidential2', 'public', 'confidential'] as const).find(
    (r) => usable(r) && r !== owner && ctx.clients[r]!.clientId !== ctx.clients[owner!]!.clientId,
  );
  if (!owner || !other)
    ctx.skip(
      'needs two different code-flow clients, one to be issued the grant and one to present it ' +
        '(clients.confidential with clients.confidential2 or clients.public in the target config)',
    );
  return { owner, other, otherIsPublic: ctx.clients[other]!.authMethod === 'none' };
}

/** The clients whose scope is the harness's guess (Client.scopeGuessed), in words: `public "openid profile", …`. */
export function guessedScopes(clients: readonly Client[]): string {
  return clients.map((c) => `${c.role} ${JSON.stringify(c.scope)}`).join(', ');
}

/**
 * Why `client` cannot get a token for a probe here, or undefined when it can: the machine client by client_credentials,
 * any other by a code flow of its own (a redirect URI, a user, the authorization_code grant).
 */
export function cannotGetToken(ctx: ScenarioContext, client: Client): string | undefined {
  if (client.role === 'machine')
    return ctx.target.supports(`grant:${GRANT.clientCredentials}`) ? undefined : 'no client_credentials grant';
  if (!client.redirectUri) return 'no redirectUri for a code flow';
  if (!ctx.user) return 'a code needs a user who can log in (user in the target config)';
  if (!ctx.target.supports(`grant:${GRANT.code}`)) return 'no authorization_code grant';
  return undefined;
}

/** The confidential clients that may authenticate with a secret, in the order a probe tries them. */
export const SECRET_ROLES = ['machine', 'confidential', 'confidential2'] as const;

/** Why `role` cannot carry a probe that needs its client secret and a token of its own, or undefined when it can. */
export function cannotCarrySecret(ctx: ScenarioContext, role: (typeof SECRET_ROLES)[number]): string | undefined {
  const client = ctx.clients[role];
  if (!client) return 'not configured';
  if (client.clientSecret === undefined) return `has no secret (authenticates with "${client.authMethod}")`;
  return cannotGetToken(ctx, client);
}
