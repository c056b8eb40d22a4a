import {
  CheckFailure,
  type Client,
  type ProtectedResourceConfig,
  type RequirementRef,
  type ScenarioContext,
  defineScenario,
} from '../../harness/scenario/scenario.ts';
import { applyingRevision, everyRevision, mcpRequirements } from '../checks/mcp.ts';
import {
  RESOURCE_TOKEN_ROLES,
  acceptedToken,
  askToken,
  audienceOf,
  protectedResource,
  resourceAnswer,
  resourceRequest,
  tokenRefused,
} from '../checks/protected-resource.ts';

export default defineScenario({
  id: 'prm.audience-enforced',
  title:
    'The protected resource refuses, with 401, an invalid access token and a valid one issued for another resource',
  requirements: {
    rfc9700_2_3: {
      spec: 'RFC 9700',
      section: '2.3',
      level: 'MUST',
      party: 'server',
      note: 'a resource server refuses a request whose access token was not meant for it',
    },
    ...mcpRequirements(
      'mcp_token_handling',
      everyRevision('Token Handling'),
      'MUST',
      'MCP servers validate that access tokens were issued specifically for them as the intended audience; ' +
        'invalid tokens receive HTTP 401',
    ),
    ...mcpRequirements(
      'mcp_privilege',
      everyRevision('Access Token Privilege Restriction'),
      'MUST',
      'MCP servers only accept tokens specifically intended for themselves',
    ),
  },
  severity: 'critical',
  appliesTo: 'oauth2',
  requires: { optionalRoles: RESOURCE_TOKEN_ROLES, capabilities: ['endpoint:token'] },
  catches: ['rs-audience-unchecked'],
  async run(ctx) {
    const resource = protectedResource(ctx);
    const control = await acceptedToken(ctx, resource);
    await invalidTokenRefused(ctx, resource, control.token, ctx.req.rfc9700_2_3);
    const foreign = await foreignToken(ctx, control.client, resource);
    if ('skip' in foreign) return ctx.skip(foreign.skip);
    const res = await resourceRequest(ctx, resource, {
      token: foreign.token,
      label: `the resource request with a token issued for ${foreign.audience}`,
    });
    const mcp = applyingRevision(ctx, 'mcp_token_handling');
    const rule = mcp ?? ctx.req.rfc9700_2_3;
    if (!tokenRefused(res))
      throw new CheckFailure(
        `The resource ${resource.url} accepted an access token issued for ${foreign.audience} (${foreign.how}): ` +
          `${resourceAnswer(res)}; ${rule.label} requires it to refuse a token not meant for it.`,
        { requirement: rule },
      );
    if (res.status !== 401) {
      if (mcp)
        throw new CheckFailure(
          `The resource refused the token for ${foreign.audience} with ${resourceAnswer(res)}; ${mcp.label} requires ` +
            'HTTP 401 for an invalid token.',
          { requirement: mcp, kind: 'refused-wrongly' },
        );
    }
    ctx.evidence.note(`The resource refused the token issued for ${foreign.audience}: ${resourceAnswer(res)}.`);
  },
});

/**
 * A valid token whose audience is not the resource: one asked for resource.otherResource (a resource the config says
 * the server issues tokens for), else one asked without a resource indicator whose audience (its JWT aud, or
 * introspection's) is seen not to name the resource. A token whose audience cannot be seen is no premise: skipped.
 */
async function foreignToken(
  ctx: ScenarioContext,
  client: Client,
  resource: ProtectedResourceConfig,
): Promise<{ token: string; how: string; audience: string } | { skip: string }> {
  const other = resource.otherResource;
  if (other) {
    const got = await askToken(ctx, client, other);
    if ('refused' in got)
      return {
        skip:
          `the authorization server issued no access token for the other resource ${other} (${got.refused}), so ` +
          'there is no token for another audience to present',
      };
    return { token: got.token, how: got.how, audience: `another resource, ${other}` };
  }
  const got = await askToken(ctx, client, undefined);
  if ('refused' in got)
    return {
      skip:
        'no other resource is configured (resource.otherResource) and the authorization server issued no token ' +
        `without a resource indicator (${got.refused}): no token for another audience to present`,
    };
  const aud = await audienceOf(ctx, got.token);
  if (aud === undefined)
    return {
      skip:
        'no other resource is configured (resource.otherResource), and the token asked without a resource ' +
        'indicator shows no audience (opaque, and no introspection gives its aud): nothing shows it is for another ' +
        'resource',
    };
  const audiences = [aud.value].flat();
  if (audiences.includes(resource.url))
    return {
      skip:
        `no other resource is configured (resource.otherResource), and the token asked without a resource ` +
        `indicator is for this resource too (aud ${JSON.stringify(aud.value)}, ${aud.from}): no token for another ` +
        'audience to present',
    };
  ctx.evidence.note(
    `The token asked without a resource indicator (${got.how}) has aud ${JSON.stringify(aud.value)} (${aud.from}): ` +
      `not the resource ${resource.url}.`,
  );
  return { token: got.token, how: got.how, audience: `the audience ${JSON.stringify(aud.value)}` };
}

/**
 * MCP "Token Handling": "Invalid or expired tokens MUST receive a HTTP 401 response." The accepted token with its
 * last characters changed (a token the server never issued, of the same shape) must get 401, as no token at all does.
 */
async function invalidTokenRefused(
  ctx: ScenarioContext,
  resource: ProtectedResourceConfig,
  good: string,
  rfc: RequirementRef,
) {
  const forged = `${good.slice(0, -8)}${ctx.random(6).slice(0, 8)}`;
  const res = await resourceRequest(ctx, resource, {
    token: forged,
    label: 'the resource request with an invalid access token (the accepted one with its end changed)',
  });
  const mcp = applyingRevision(ctx, 'mcp_token_handling');
  if (res.status >= 500) {
    // Neither accepted nor refused as RFC 6750 §3.1 says: a server error. Only MCP's sentence names the status.
    if (mcp)
      throw new CheckFailure(
        `The resource answered an invalid access token with ${resourceAnswer(res)}; ${mcp.label} requires HTTP 401 ` +
          'for an invalid or expired token.',
        { requirement: mcp, kind: 'refused-wrongly' },
      );
    ctx.evidence.note(`The resource answered an invalid access token with ${resourceAnswer(res)}.`);
    return;
  }
  if (!tokenRefused(res))
    throw new CheckFailure(
      `The resource ${resource.url} accepted an access token the server never issued (the accepted token with its ` +
        `end changed): ${resourceAnswer(res)}; ${(mcp ?? rfc).label} requires it to refuse a token ` +
        'not meant for it.',
      { requirement: mcp ?? rfc },
    );
  if (res.status !== 401 && mcp)
    throw new CheckFailure(
      `The resource answered an invalid access token with ${resourceAnswer(res)}; ${mcp.label} requires HTTP 401 ` +
        'for an invalid or expired token.',
      { requirement: mcp, kind: 'refused-wrongly' },
    );
  ctx.evidence.note(`The resource refused an invalid access token: ${resourceAnswer(res)}.`);
}
