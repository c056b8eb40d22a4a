import { GRANT, defineScenario } from '../../harness/scenario.ts';
import { expectControl, expectHeader, expectOAuthError, expectStatus } from '../checks/index.ts';

const SECRET_METHODS = ['client_secret_basic', 'client_secret_post'] as const;

export default defineScenario({
  id: 'client-auth.bad-secret',
  title: 'A wrong client secret gets invalid_client (401 with WWW-Authenticate: Basic when Basic was used)',
  requirements: {
    rfc6749_5_2: {
      spec: 'RFC 6749',
      section: '5.2',
      level: 'MUST',
      party: 'server',
      note: 'invalid_client; 401 and WWW-Authenticate for Basic',
    },
    // "The client MUST authenticate" (§4.4.2) binds the client; §3.2.1 makes the server require and check it.
    rfc6749_4_4_2: {
      spec: 'RFC 6749',
      section: '4.4.2',
      level: 'MUST',
      party: 'client',
      note: 'the client must authenticate',
    },
    rfc6749_3_2_1: {
      spec: 'RFC 6749',
      section: '3.2.1',
      level: 'MUST',
      party: 'server',
      note: 'require and check client authentication',
    },
  },
  severity: 'critical',
  appliesTo: 'oauth2',
  requires: { roles: ['machine'], capabilities: ['grant:client_credentials', 'endpoint:token'] },
  catches: ['client-secret-unchecked'],
  async run(ctx) {
    const client = ctx.client('machine');
    // The configured method, and the other one when the target advertises it: a wrong secret is
    // invalid_client whichever way it is sent.
    const methods = SECRET_METHODS.filter((m) => m === client.authMethod || ctx.target.supports(`auth:${m}`));
    if (methods.length === 0)
      return ctx.skip(
        `the machine client authenticates with "${client.authMethod}" and the target advertises no secret-based method`,
      );
    const wrong = `${client.clientSecret ?? ''}-wrong-${ctx.random(6)}`;
    for (const auth of methods) {
      const res = await ctx.http.token(
        client,
        { grant_type: GRANT.clientCredentials, scope: client.scope || undefined },
        {
          auth,
          secret: wrong,
          label: `client_credentials with a wrong secret (${auth})`,
        },
      );
      const rule = {
        when: `A client_credentials request with a wrong client secret (${auth})`,
        per: ctx.req.rfc6749_5_2,
      };
      await ctx.softly(() => {
        expectOAuthError(res, 'invalid_client', rule);
        if (auth !== 'client_secret_basic') return;
        // Authentication in the Authorization header: 401 and a challenge for the scheme used.
        expectStatus(res, 401, rule);
        expectHeader(res, 'WWW-Authenticate', /(^|,)\s*Basic(\s|,|$)/i, {
          ...rule,
          want: 'a WWW-Authenticate challenge with the Basic scheme',
        });
      });
    }
    await expectControl(
      'the requests with a wrong client secret were refused',
      'client_credentials with the right secret',
      () => ctx.flows.clientCredentials('machine'),
    );
  },
});
