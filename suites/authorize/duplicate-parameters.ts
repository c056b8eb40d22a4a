import { CheckFailure, defineScenario, requiresPar } from '../../harness/scenario/scenario.ts';
import {
  CODE_FLOW_CAPABILITIES,
  CODE_FLOW_ROLES,
  REPEATED_PARAMETER,
  authorizationAnswer,
  codeFlowScope,
  expectRefusalIsFor,
  findClient,
  pkceParams,
} from '../checks/index.ts';

export default defineScenario({
  id: 'authorize.duplicate-parameters',
  title: 'An authorization request with a parameter included twice (two different state values) is refused',
  requirements: REPEATED_PARAMETER,
  severity: 'medium',
  appliesTo: 'oauth2',
  requires: { optionalRoles: CODE_FLOW_ROLES, user: true, capabilities: CODE_FLOW_CAPABILITIES },
  catches: ['authorize-duplicate-params-accepted'],
  async run(ctx) {
    if (requiresPar(ctx.target))
      return ctx.skip(
        'the target takes authorization requests only by PAR (require_pushed_authorization_requests): ' +
          'par.duplicate-parameters judges a repeated parameter there',
      );
    const client =
      findClient(ctx, CODE_FLOW_ROLES, (c) => !!c.redirectUri) ??
      ctx.skip('needs a code-flow client with a redirectUri (clients.confidential, public or confidential2)');
    // A sound request but for a second, different state: nothing else in it can be the cause of a refusal.
    const { url, request } = ctx.authorizationUrl(client.role, {
      scope: codeFlowScope(ctx.target, client.scope),
      ...pkceParams(ctx),
    });
    const twice = new URL(url);
    twice.searchParams.append('state', ctx.random());
    const outcome = await ctx.login.authorize(twice.href, [client.redirectUri ?? ''], {
      stayWithin: ctx.target.issuer,
      session: 'shared',
    });
    const what = 'The authorization request with state twice (two different values)';
    const answer = authorizationAnswer({ ...outcome, request }, what);
    if (answer.kind === 'code') {
      throw new CheckFailure(
        `${what} as the ${client.role} client was answered with a code; ${ctx.req.rfc6749_4_1_2_1} makes a ` +
          'request that includes a parameter more than once invalid_request (RFC 6749 §3.1: each parameter once).',
        { requirement: ctx.req.rfc6749_4_1_2_1 },
      );
    }
    await expectRefusalIsFor(ctx, client.role, `with state twice ${answer.how}`, 'the repeated state parameter');
  },
});
