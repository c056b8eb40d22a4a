import { defineScenario } from '../../harness/scenario/scenario.ts';
import { CODE_FLOW_CAPABILITIES, expectAuthTime, signIn } from '../checks/index.ts';

export default defineScenario({
  id: 'id-token.auth-time',
  title: 'When max_age is requested, the ID token carries auth_time',
  requirements: {
    oidcCore_2: {
      spec: 'OIDC Core',
      section: '2',
      level: 'MUST',
      party: 'server',
      note: 'auth_time is REQUIRED when max_age is requested',
    },
    oidcCore_3_1_2_1: {
      spec: 'OIDC Core',
      section: '3.1.2.1',
      level: 'MUST',
      party: 'server',
      note: 'max_age: the ID token MUST include auth_time',
    },
  },
  severity: 'medium',
  appliesTo: 'oidc',
  requires: { roles: ['confidential'], user: true, capabilities: CODE_FLOW_CAPABILITIES },
  catches: ['auth-time-missing'],
  async run(ctx) {
    const started = Math.floor(Date.now() / 1000);
    const { claims } = await signIn(ctx, 'confidential', { params: { max_age: '3600' } });
    const authTime = expectAuthTime(claims, { when: 'The code flow with max_age=3600', per: ctx.req.oidcCore_2 });
    ctx.evidence.note(
      `auth_time ${authTime} (the flow began at ${started} by the harness's clock; the two clocks may differ).`,
    );
  },
});
