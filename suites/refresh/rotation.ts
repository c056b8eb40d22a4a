import {
  type ClientRole,
  CheckFailure,
  type RequirementRef,
  type ScenarioContext,
  defineScenario,
} from '../../harness/scenario/scenario.ts';
import { expectBearer, expectTokenResponse, refresh, tokensWithRefresh } from '../checks/index.ts';
import { mcpRequirement } from '../../harness/model/mcp-requirement.ts';

/** Refreshes once as `role` and checks the answer is a new token pair of type Bearer. */
async function expectRotation(ctx: ScenarioContext, role: ClientRole, per: RequirementRef): Promise<void> {
  const { tokens } = await tokensWithRefresh(ctx, role);
  const res = await refresh(ctx, role, tokens.refresh_token);
  const when = `A refresh request as the ${role} client`;
  const next = expectTokenResponse(res, { when, per });
  expectBearer(next, { when, per });
  if (typeof next.refresh_token !== 'string' || !next.refresh_token) {
    throw new CheckFailure(
      `${when} returned no new refresh_token; ${per} requires a new refresh token on every refresh (rotation).`,
      { requirement: per, kind: 'accepted' },
    );
  }
  if (next.refresh_token === tokens.refresh_token) {
    throw new CheckFailure(
      `${when} returned the same refresh_token it was given; ${per} requires a new one on every refresh (rotation).`,
      { requirement: per, kind: 'accepted' },
    );
  }
  if (next.access_token === tokens.access_token) {
    throw new CheckFailure(`${when} returned the access_token issued before; ${per} requires a new access token.`, {
      requirement: per,
      kind: 'accepted',
    });
  }
}

export default defineScenario({
  id: 'refresh.rotation',
  title: 'A refresh returns a new refresh token and a new access token of type Bearer (rotation)',
  requirements: {
    specTokenEndpoint: { spec: 'SPEC', section: 'Token endpoint', level: 'MUST', party: 'server', note: 'rule 2' },
    // RFC 9700 asks rotation (or sender-constrained refresh tokens, which the harness does not use) of public clients
    // only.
    rfc9700_4_14_2: {
      spec: 'RFC 9700',
      section: '4.14.2',
      level: 'MUST',
      party: 'server',
      roles: ['public'],
      note: 'public clients',
    },
    rfc9700_2_2_2: {
      spec: 'RFC 9700',
      section: '2.2.2',
      level: 'MUST',
      party: 'server',
      roles: ['public'],
      note: 'public clients',
    },
    // MCP: "For public clients, authorization servers MUST rotate refresh tokens" (Token Theft).
    mcp_2025_06_18: mcpRequirement('theft/rotate-refresh', '2025-06-18', { roles: ['public'], note: 'public clients' }),
    mcp_2025_11_25: mcpRequirement('theft/rotate-refresh', '2025-11-25', { roles: ['public'], note: 'public clients' }),
    mcp_2026_07_28: mcpRequirement('theft/rotate-refresh', '2026-07-28', { roles: ['public'], note: 'public clients' }),
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: {
    roles: ['public'],
    optionalRoles: ['confidential'],
    user: true,
    capabilities: ['grant:authorization_code', 'grant:refresh_token', 'endpoint:token'],
  },
  catches: ['refresh-not-rotated'],
  async run(ctx) {
    await expectRotation(
      ctx,
      'public',
      ctx.applies(ctx.req.rfc9700_4_14_2) ? ctx.req.rfc9700_4_14_2 : ctx.req.specTokenEndpoint,
    );
    // The SPEC asks rotation of every client; the RFCs only of public ones.
    if (!ctx.applies(ctx.req.specTokenEndpoint))
      ctx.log(
        `the confidential client was not tried: only the SPEC requires rotation of it, and the ${ctx.profile} ` +
          `profile does not count the SPEC`,
      );
    else if (ctx.clients.confidential) await expectRotation(ctx, 'confidential', ctx.req.specTokenEndpoint);
  },
});
