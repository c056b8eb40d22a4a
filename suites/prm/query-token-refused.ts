import { CheckFailure, defineScenario } from '../../harness/scenario/scenario.ts';
import { applyingRevision, everyRevision, mcpRequirements } from '../checks/mcp.ts';
import {
  RESOURCE_TOKEN_ROLES,
  acceptedToken,
  protectedResource,
  resourceAnswer,
  resourceRequest,
  tokenRefused,
} from '../checks/protected-resource.ts';

export default defineScenario({
  id: 'prm.query-token-refused',
  title: 'The protected resource refuses an access token sent in the URI query string',
  requirements: {
    ...mcpRequirements(
      'mcp_token_requirements',
      everyRevision('Token Requirements'),
      'MUST',
      'access tokens MUST NOT be included in the URI query string (the sentence names no party: a resource that ' +
        'takes one from the query string is judged)',
    ),
    rfc9700_4_3_2: {
      spec: 'RFC 9700',
      section: '4.3.2',
      level: 'MUST',
      party: 'client',
      note: 'clients MUST NOT pass access tokens in a URI query parameter (RFC 6750 §2.3)',
    },
    rfc6750_2_3: {
      spec: 'RFC 6750',
      section: '2.3',
      level: 'SHOULD',
      party: 'client',
      note: 'the URI query method SHOULD NOT be used; resource servers MAY support it',
    },
  },
  severity: 'medium',
  appliesTo: 'oauth2',
  requires: { optionalRoles: RESOURCE_TOKEN_ROLES, capabilities: ['endpoint:token'] },
  catches: ['rs-query-token-accepted'],
  async run(ctx) {
    const resource = protectedResource(ctx);
    const { token, how } = await acceptedToken(ctx, resource);
    const res = await resourceRequest(ctx, resource, {
      queryToken: token,
      label: 'the resource request with the access token as ?access_token= and no Authorization header',
    });
    const rule = applyingRevision(ctx, 'mcp_token_requirements') ?? ctx.req.mcp_token_requirements_2026_07_28;
    if (!tokenRefused(res))
      throw new CheckFailure(
        `The resource accepted the access token (${how}) from the URI query string (access_token), with no ` +
          `Authorization header: ${resourceAnswer(res)}; ${rule.label} keeps access tokens out of the URI query ` +
          'string.',
        { requirement: rule },
      );
    ctx.evidence.note(`The resource refused the token in the query string: ${resourceAnswer(res)}.`);
  },
});
