import { PreconditionError, defineScenario, describeOutcome } from '../../harness/scenario/scenario.ts';
import { expectNoField, tokenResponseTypes, withOpenid } from '../checks/index.ts';

export default defineScenario({
  id: 'implicit.no-refresh-token',
  title: 'Where the implicit grant is offered, it never returns a refresh token',
  requirements: {
    rfc6749_4_2_2: { spec: 'RFC 6749', section: '4.2.2', level: 'MUST', party: 'server' },
    specWhatTheServiceDoes: {
      spec: 'SPEC',
      section: 'What the service does',
      level: 'MUST',
      party: 'server',
      note: 'grant table: implicit issues no refresh token',
    },
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: { roles: ['legacy'], user: true, capabilities: ['endpoint:authorization'] },
  catches: ['implicit-issues-refresh'],
  async run(ctx) {
    const offered = tokenResponseTypes(ctx.target);
    // Plain OAuth "token" first; "id_token token" is OpenID Connect's implicit flow (OIDC Core §3.2).
    const responseType = ['token', 'id_token token'].find((t) => offered.includes(t));
    if (!responseType)
      ctx.skip(
        'the target does not offer the implicit grant (response_types_supported has neither "token" nor ' +
          '"id_token token")',
      );
    const client = ctx.client('legacy');
    if (!client.redirectUri) ctx.skip('clients.legacy has no redirectUri, which the implicit grant needs');
    const scope = responseType === 'token' ? client.scope || undefined : withOpenid(client.scope);
    const outcome = await ctx.authorize(
      'legacy',
      { response_type: responseType, scope, nonce: ctx.random() },
      { session: 'shared' },
    );
    if (outcome.kind !== 'redirect' || !outcome.params.access_token) {
      throw new PreconditionError(
        `the implicit request (response_type=${responseType}) as legacy ${describeOutcome(outcome)}; an access ` +
          `token was needed to go on`,
      );
    }
    expectNoField(outcome.params, 'refresh_token', {
      when: `The implicit grant's authorization response (response_type=${responseType})`,
      per: ctx.req.rfc6749_4_2_2,
    });
  },
});
