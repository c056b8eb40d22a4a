import { CheckFailure, GRANT, PreconditionError, defineScenario } from '../../harness/scenario/scenario.ts';
import { describeResponse, expectGrantNotOffered } from '../checks/index.ts';

export default defineScenario({
  id: 'password.no-refresh-token',
  title: 'Where the password grant is offered, it returns no refresh token; offering it at all is discouraged',
  requirements: {
    specWhatTheServiceDoes: {
      spec: 'SPEC',
      section: 'What the service does',
      level: 'MUST',
      party: 'server',
      note: 'grant table: the password grant issues no refresh token',
    },
    rfc9700_2_4: {
      spec: 'RFC 9700',
      section: '2.4',
      level: 'SHOULD',
      party: 'server',
      note: 'offering the grant; the BCP says it must not be used',
    },
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: { roles: ['legacy'], user: true, capabilities: [`grant:${GRANT.password}`, 'endpoint:token'] },
  catches: ['password-issues-refresh'],
  async run(ctx) {
    await ctx.softly(() =>
      expectGrantNotOffered(ctx.target, GRANT.password, {
        when: 'The target',
        per: ctx.req.rfc9700_2_4,
        why: 'says the resource owner password credentials grant must not be used',
      }),
    );
    // RFC 6749 §4.3.3 allows a refresh token here; only the SPEC's grant table rules it out.
    if (ctx.profile !== 'spec') return;
    const client = ctx.client('legacy');
    const user = ctx.user!;
    const res = await ctx.http.token(
      client,
      {
        grant_type: GRANT.password,
        username: user.username,
        password: user.password,
        scope: client.scope || undefined,
      },
      { label: 'password grant request' },
    );
    if (res.status !== 200 || typeof res.body.access_token !== 'string') {
      throw new PreconditionError(
        `the password grant as legacy got ${describeResponse(res)}; tokens were needed to see whether they include ` +
          `a refresh token`,
      );
    }
    if (res.body.refresh_token !== undefined) {
      throw new CheckFailure(
        "The password grant returned a refresh_token; the SPEC's grant table (What the service does) says the " +
          'resource owner password grant issues none.',
        { requirement: ctx.req.specWhatTheServiceDoes },
      );
    }
  },
});
