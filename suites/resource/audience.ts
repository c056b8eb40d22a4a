import {
  CheckFailure,
  type Client,
  GRANT,
  type ScenarioContext,
  defineScenario,
} from '../../harness/scenario/scenario.ts';
import { expectOAuthError, jwtPayload, tokensOf, cannotGetToken } from '../checks/index.ts';
import { grantParams } from '../checks/protected-resource.ts';

/** The clients that may carry a resource indicator, in the order tried. */
const RESOURCE_ROLES = ['machine', 'confidential', 'confidential2', 'public', 'keyed'] as const;

export default defineScenario({
  id: 'resource.audience',
  title:
    "A resource indicator restricts the access token's audience to that resource; an unknown resource gets " +
    'invalid_target',
  requirements: {
    rfc8707_2: {
      spec: 'RFC 8707',
      section: '2',
      level: 'SHOULD',
      party: 'server',
      note: 'audience-restrict the token to the indicated resource; invalid_target for an unacceptable one',
    },
    rfc9700_2_3: {
      spec: 'RFC 9700',
      section: '2.3',
      level: 'SHOULD',
      party: 'server',
      note: 'access tokens audience-restricted to a resource server',
    },
  },
  severity: 'medium',
  appliesTo: 'oauth2',
  // Whichever client the config gives a resource indicator: the machine client by client_credentials, a code-flow
  // client by the authorization_code grant (and the refresh_token grant when it gets a refresh token).
  requires: { optionalRoles: RESOURCE_ROLES, capabilities: ['endpoint:token'] },
  catches: ['resource-ignored'],
  async run(ctx) {
    const tried: string[] = [];
    let client: Client | undefined;
    for (const role of RESOURCE_ROLES) {
      const why = cannotCarry(ctx, role);
      if (!why) {
        client = ctx.client(role);
        break;
      }
      tried.push(`${role}: ${why}`);
    }
    // RFC 8707 has no discovery field: the config says which resource the IdP knows.
    if (!client)
      return ctx.skip(
        `needs a client with a resource indicator the IdP knows (clients.<role>.resource; RFC 8707 defines no ` +
          `discovery field that advertises support); tried ${tried.join('; ')}`,
      );
    const resource = client.resource!;
    if (tried.length) ctx.log(`the ${client.role} client carries the probe (${tried.join('; ')})`);
    const grant = client.role === 'machine' ? 'client_credentials' : 'authorization_code';
    const tokens = tokensOf(
      await ctx.http.token(client, await grantParams(ctx, client, resource), {
        label: `${grant} for resource ${resource}`,
      }),
      `${grant} with a resource`,
    );
    await expectAudience(ctx, `A ${grant} token`, tokens.access_token, resource);
    // The refresh grant too (RFC 8707 §2.2), for a code-flow client's grant: a refresh that does not work is noted,
    // not judged here (refresh.* judge the refresh itself).
    if (tokens.refresh_token && client.role !== 'machine') {
      const res = await ctx.http.token(
        client,
        { grant_type: GRANT.refresh, refresh_token: tokens.refresh_token, resource },
        { label: `refresh_token for resource ${resource}` },
      );
      if (res.status === 200 && typeof res.body.access_token === 'string')
        await expectAudience(ctx, 'A refreshed token', res.body.access_token, resource);
      else
        ctx.evidence.note(`The refresh with resource ${resource} got HTTP ${res.status}: its audience is not judged.`);
    }
    const unknown = `https://unknown-${ctx.random(6).toLowerCase()}.resource.invalid/api`;
    const res = await ctx.http.token(client, await grantParams(ctx, client, undefined, unknown), {
      label: `${grant} for an unknown resource`,
    });
    expectOAuthError(res, 'invalid_target', {
      when: `A${grant === 'authorization_code' ? 'n' : ''} ${grant} request for the unknown resource ${unknown}`,
      per: ctx.req.rfc8707_2,
    });
  },
});

/** Why a role cannot carry the probe here, or undefined when it can. */
function cannotCarry(ctx: ScenarioContext, role: (typeof RESOURCE_ROLES)[number]): string | undefined {
  const client = ctx.clients[role];
  if (!client) return 'not configured';
  if (!client.resource) return `no resource (clients.${role}.resource)`;
  return cannotGetToken(ctx, client);
}

/** The token's aud, where it can be read: the indicated resource, and nothing else. */
async function expectAudience(
  ctx: ScenarioContext<'rfc8707_2' | 'rfc9700_2_3'>,
  what: string,
  token: string,
  resource: string,
): Promise<void> {
  const payload = jwtPayload(token);
  if (!payload) {
    ctx.evidence.note(
      `${what} is opaque: its audience cannot be read from outside; only the unknown resource is checked.`,
    );
    return;
  }
  const aud = [payload.aud].flat();
  ctx.evidence.note(
    `aud of ${what.toLowerCase().replace(/^an? /, 'the ')} for ${resource}: ${JSON.stringify(payload.aud)}`,
  );
  await ctx.softly(() => {
    if (!aud.includes(resource))
      throw new CheckFailure(
        `${what} requested for resource ${resource} has ` +
          `aud ${JSON.stringify(payload.aud)}; ${ctx.req.rfc8707_2} asks the server to audience-restrict it to ` +
          `the indicated resource.`,
        { requirement: ctx.req.rfc8707_2 },
      );
    if (aud.length > 1)
      throw new CheckFailure(
        `${what} requested for resource ${resource} has aud ${JSON.stringify(payload.aud)}: other audiences ` +
          `besides the indicated resource; ${ctx.req.rfc8707_2} asks for the indicated resource.`,
        { requirement: ctx.req.rfc8707_2 },
      );
  });
}
