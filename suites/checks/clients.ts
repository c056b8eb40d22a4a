/** Choosing among the configured clients at run time. */
import type { Client, ClientRole, ScenarioContext } from '../../harness/scenario.ts';

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
