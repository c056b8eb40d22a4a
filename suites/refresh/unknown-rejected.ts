import { defineScenario } from '../../harness/scenario/scenario.ts';
import { expectControl, expectOAuthError, refresh, refreshWorks, tokensWithRefresh } from '../checks/index.ts';

export default defineScenario({
  id: 'refresh.unknown-rejected',
  title: 'A refresh token the server never issued is rejected with invalid_grant',
  requirements: {
    specStatesAndTransitions: {
      spec: 'SPEC',
      section: 'States and transitions',
      level: 'MUST',
      party: 'server',
      note: 'refresh token: unknown → rejected',
    },
    specErrors: { spec: 'SPEC', section: 'Errors', level: 'MUST', party: 'server', note: 'rule 1' },
    rfc6749_6: { spec: 'RFC 6749', section: '6', level: 'MUST', party: 'server', note: 'validate the refresh token' },
    rfc6749_5_2: { spec: 'RFC 6749', section: '5.2', level: 'MUST', party: 'server', note: 'invalid_grant' },
  },
  severity: 'critical',
  appliesTo: 'oauth2',
  requires: { roles: ['confidential'], user: true, capabilities: ['grant:refresh_token', 'endpoint:token'] },
  catches: ['refresh-unknown-accepted'],
  async run(ctx) {
    // Well-formed and as long as a real one (32 random octets), but never issued.
    const res = await refresh(
      ctx,
      'confidential',
      ctx.random(32),
      {},
      'refresh_token as confidential, with a token never issued',
    );
    expectOAuthError(res, 'invalid_grant', {
      when: 'A refresh request with a refresh token the server never issued',
      per: ctx.req.rfc6749_6,
    });
    await expectControl(
      'the refresh token never issued got invalid_grant',
      'a refresh with a refresh token the target issued',
      async () => {
        const { tokens } = await tokensWithRefresh(ctx, 'confidential');
        await refreshWorks(ctx, 'confidential', tokens.refresh_token);
      },
    );
  },
});
