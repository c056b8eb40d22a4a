import { GRANT, JudgementError, defineScenario } from '../../harness/scenario/scenario.ts';
import { parseScope } from '../../generators/scope.ts';
import { USER_SCOPES, describeResponse, escalatingScopes, expectScopesWithheld } from '../checks/index.ts';

export default defineScenario({
  id: 'scope.escalation-token',
  title:
    "A client_credentials request for scopes beyond the client's gets invalid_scope (or the extra scopes are " +
    'not granted)',
  requirements: {
    specErrors: { spec: 'SPEC', section: 'Errors', level: 'MUST', party: 'server', note: 'rule 4' },
    // The RFCs leave granting to server policy (RFC 6749 §3.3); §5.2 names the error when it refuses.
    rfc6749_5_2: {
      spec: 'RFC 6749',
      section: '5.2',
      level: 'MUST',
      party: 'server',
      profiles: ['spec'],
      note: 'invalid_scope',
    },
  },
  severity: 'critical',
  appliesTo: 'oauth2',
  requires: { roles: ['machine'], capabilities: ['grant:client_credentials', 'endpoint:token'] },
  catches: ['scope-unchecked'],
  async run(ctx) {
    const client = ctx.client('machine');
    if (client.scopeGuessed)
      return ctx.skip(
        `the machine client's scope ${JSON.stringify(client.scope)} is the harness's, stated neither by the config ` +
          'nor by the registration response: no scope is known to be beyond it (set clients.machine.scope)',
      );
    const configured = parseScope(client.scope);
    // Scopes about a user mean nothing without one; escalate to the advertised API scopes.
    const extra = escalatingScopes(ctx.target, configured, USER_SCOPES);
    if (extra.length === 0) {
      return ctx.skip(
        `the target advertises no scope (scopes_supported, user scopes aside) beyond the machine client's ` +
          `"${client.scope}" to escalate to`,
      );
    }
    const requested = [...configured, ...extra];
    const res = await ctx.http.token(
      client,
      { grant_type: GRANT.clientCredentials, scope: requested.join(' ') },
      {
        label: `client_credentials asking for ${extra.join(' ')} beyond the client's scope`,
      },
    );
    if (res.status !== 200 && res.body.error !== 'invalid_scope') {
      // Refused with another code: judge it only if the same request within the client's scope succeeds.
      const control = await ctx.http.token(
        client,
        { grant_type: GRANT.clientCredentials, scope: client.scope || undefined },
        {
          label: "client_credentials within the client's scope (control)",
        },
      );
      if (control.status !== 200) {
        throw new JudgementError(
          `the request for ${extra.join(' ')} got ${describeResponse(res)}, but the same request within the ` +
            `client's scope got ${describeResponse(control)} too, so the refusal cannot be put down to the extra scope`,
        );
      }
    }
    expectScopesWithheld(res, extra, requested, ctx.jwt, {
      when: `A client_credentials request for ${extra.join(' ')} beyond the machine client's scope "${client.scope}"`,
      per: ctx.req.specErrors,
    });
  },
});
