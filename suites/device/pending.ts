import { defineScenario } from '../../harness/scenario/scenario.ts';
import { DEVICE_CAPABILITIES, expectOAuthError } from '../checks/index.ts';

export default defineScenario({
  id: 'device.pending',
  title: 'Polling before the user has approved the device gets authorization_pending, and no tokens',
  requirements: {
    specStatesAndTransitions: {
      spec: 'SPEC',
      section: 'States and transitions',
      level: 'MUST',
      party: 'server',
      note: 'device code: pending',
    },
    specErrors: { spec: 'SPEC', section: 'Errors', level: 'MUST', party: 'server', note: 'rule 5' },
    rfc8628_3_5: { spec: 'RFC 8628', section: '3.5', level: 'MUST', party: 'server' },
  },
  severity: 'critical',
  appliesTo: 'oauth2',
  requires: { roles: ['device'], capabilities: DEVICE_CAPABILITIES },
  catches: ['device-tokens-before-approval'],
  async run(ctx) {
    const device = await ctx.flows.device('device');
    // slow_down is "a variant of authorization_pending" (RFC 8628 §3.5): poll again, later.
    const res = await device.poller.pollPastSlowDown({ label: 'device code poll before the user has acted' });
    expectOAuthError(res, 'authorization_pending', {
      when: 'Polling the token endpoint before the user had approved the device',
      per: ctx.req.rfc8628_3_5,
    });
  },
});
