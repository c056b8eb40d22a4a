import { CheckFailure, defineScenario } from '../../harness/scenario/scenario.ts';
import { applyingRevision, everyRevision, mcpRequirements } from '../checks/mcp.ts';
import {
  RESOURCE_TOKEN_ROLES,
  acceptedToken,
  askToken,
  protectedResource,
  resourceAnswer,
  resourceRequest,
  tokenRefused,
} from '../checks/protected-resource.ts';

export default defineScenario({
  id: 'prm.audience-enforced',
  title: 'The protected resource refuses, with 401, a valid access token issued for another resource',
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
    const other = resource.otherResource;
    if (!other)
      return ctx.skip(
        'needs another resource the authorization server issues tokens for (resource.otherResource in the config): ' +
          'a token for it is what the resource must refuse',
      );
    const control = await acceptedToken(ctx, resource);
    const foreign = await askToken(ctx, control.client, other);
    if ('refused' in foreign)
      return ctx.skip(
        `the authorization server issued no access token for the other resource ${other} (${foreign.refused}), so ` +
          'there is no token for another audience to present',
      );
    const res = await resourceRequest(ctx, resource, {
      token: foreign.token,
      label: `the resource request with a token issued for ${other}`,
    });
    const mcp = applyingRevision(ctx, 'mcp_token_handling');
    const rule = mcp ?? ctx.req.rfc9700_2_3;
    if (!tokenRefused(res))
      throw new CheckFailure(
        `The resource ${resource.url} accepted an access token issued for another resource, ${other} ` +
          `(${foreign.how}): ${resourceAnswer(res)}; ${rule.label} requires it to refuse a token not meant for it.`,
        { requirement: rule },
      );
    if (res.status !== 401) {
      if (mcp)
        throw new CheckFailure(
          `The resource refused the token for ${other} with ${resourceAnswer(res)}; ${mcp.label} requires HTTP 401 ` +
            'for an invalid token.',
          { requirement: mcp, kind: 'refused-wrongly' },
        );
    }
    ctx.evidence.note(`The resource refused the token issued for ${other}: ${resourceAnswer(res)}.`);
  },
});
