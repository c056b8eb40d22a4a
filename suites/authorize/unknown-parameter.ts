import { type RequirementRef, defineScenario } from '../../harness/scenario/scenario.ts';
import { CODE_FLOW_CAPABILITIES, expectAuthorizationCode, pkceParams, codeFlowScope } from '../checks/index.ts';

export default defineScenario({
  id: 'authorize.unknown-parameter',
  title:
    'Unknown authorization parameters are ignored, and login_hint, ui_locales, claims_locales, acr_values and ' +
    'display are accepted',
  requirements: {
    rfc6749_3_1: {
      spec: 'RFC 6749',
      section: '3.1',
      level: 'MUST',
      party: 'server',
      note: 'unrecognized request parameters are ignored',
    },
    oidcCore_3_1_2_1: {
      spec: 'OIDC Core',
      section: '3.1.2.1',
      level: 'MUST',
      party: 'server',
      note: 'the OPTIONAL parameters may be sent',
    },
  },
  severity: 'medium',
  appliesTo: 'oauth2',
  requires: { roles: ['confidential'], user: true, capabilities: CODE_FLOW_CAPABILITIES },
  catches: ['unknown-param-rejected'],
  async run(ctx) {
    const client = ctx.client('confidential');
    // One request each, so that a refusal names the parameter it was for.
    const cases: Array<[string, Record<string, string>, RequirementRef]> = [
      [
        'a parameter no specification defines',
        {
          [`x_idpc_unknown_${ctx
            .random(4)
            .toLowerCase()
            .replace(/[^a-z0-9]/g, '')}`]: ctx.random(8),
        },
        ctx.req.rfc6749_3_1,
      ],
      ['login_hint', { login_hint: ctx.user?.username ?? 'user' }, ctx.req.oidcCore_3_1_2_1],
      ['ui_locales', { ui_locales: 'en-GB en fr' }, ctx.req.oidcCore_3_1_2_1],
      ['claims_locales', { claims_locales: 'en fr' }, ctx.req.oidcCore_3_1_2_1],
      ['acr_values', { acr_values: '1 2' }, ctx.req.oidcCore_3_1_2_1],
      ['display=page', { display: 'page' }, ctx.req.oidcCore_3_1_2_1],
    ];
    for (const [what, params, per] of cases) {
      await ctx.softly(async () => {
        const outcome = await ctx.authorize(
          'confidential',
          {
            scope: codeFlowScope(ctx.target, client.scope),
            nonce: ctx.random(),
            ...pkceParams(ctx),
            ...params,
          },
          { session: 'shared' },
        );
        expectAuthorizationCode(outcome, {
          when: `The authorization request with ${what} (${Object.keys(params).join(', ')})`,
          per,
        });
      });
    }
  },
});
