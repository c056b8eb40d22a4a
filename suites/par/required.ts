import { CheckFailure, PreconditionError, defineScenario } from '../../harness/scenario/scenario.ts';
import { authorizationAnswer, codeFlowClient } from '../checks/index.ts';

export default defineScenario({
  id: 'par.required',
  title: 'Where PAR is required, an authorization request that was not pushed is refused',
  requirements: {
    rfc9126_5: {
      spec: 'RFC 9126',
      section: '5',
      level: 'MUST',
      party: 'server',
      note: 'require_pushed_authorization_requests: PAR is the only way in',
    },
    fapi2_5_3_2_2: {
      spec: 'FAPI 2.0 SP',
      section: '5.3.2.2',
      level: 'MUST',
      party: 'server',
      note: 'reject authorization requests sent without PAR',
    },
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: {
    optionalRoles: ['keyed', 'confidential', 'public', 'confidential2'],
    user: true,
    capabilities: ['endpoint:pushedAuthorization', 'endpoint:authorization'],
  },
  catches: ['par-not-enforced'],
  async run(ctx) {
    const required = ctx.target.supports('metadata:require_pushed_authorization_requests');
    if (!required && ctx.profile !== 'fapi2')
      return ctx.skip(
        'the target does not advertise require_pushed_authorization_requests (RFC 9126 §5), so plain requests ' +
          'may be allowed',
      );
    const rule = required ? ctx.req.rfc9126_5 : ctx.req.fapi2_5_3_2_2;
    const client = codeFlowClient(ctx) ?? ctx.skip('needs a code-flow client with a redirect URI');
    const pkce = ctx.pkce.create();
    const plain = await ctx.authorize(
      client.role,
      { code_challenge: pkce.challenge, code_challenge_method: pkce.method },
      { par: false, session: 'shared' },
    );
    const answer = authorizationAnswer(plain, 'The authorization request sent without PAR');
    if (answer.kind === 'code') {
      throw new CheckFailure(
        `An authorization request sent straight to the authorization endpoint, not pushed, got a ` +
          `code${required ? ' though discovery says require_pushed_authorization_requests' : ''}; ${rule} requires ` +
          `it to be refused.`,
        { requirement: rule },
      );
    }
    // The same request pushed must work, or the refusal had another cause.
    const pushed = await ctx.authorize(
      client.role,
      { code_challenge: pkce.challenge, code_challenge_method: pkce.method },
      { par: true, session: 'shared' },
    );
    if (pushed.kind !== 'redirect' || !pushed.params.code) {
      throw new PreconditionError(
        `the plain request ${answer.how}, but the same request pushed got no code either, so the refusal cannot be ` +
          `put down to the missing push`,
      );
    }
    ctx.evidence.note(`The plain request ${answer.how}; pushed, the same request got a code.`);
  },
});
