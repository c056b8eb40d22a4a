import { DecisionNotGiven, defineScenario } from '../../harness/scenario/scenario.ts';
import { DEVICE_CAPABILITIES, expectOAuthError } from '../checks/index.ts';

export default defineScenario({
  id: 'device.denied',
  title: 'After the user denies the device at the activation page, polling gets access_denied',
  requirements: { rfc8628_3_5: { spec: 'RFC 8628', section: '3.5', level: 'MUST', party: 'server' } },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: { roles: ['device'], user: true, capabilities: DEVICE_CAPABILITIES },
  catches: ['device-denial-ignored'],
  async run(ctx) {
    const device = await ctx.flows.device('device');
    try {
      await device.activate('deny');
    } catch (error) {
      // No premise, no verdict: an IdP that signs the user in and offers no deny control (no decision page, or one
      // with nothing to deny by) leaves nothing to deny. An error page, or no sign-in, is a set-up problem.
      const outcome = error instanceof DecisionNotGiven ? error.outcome : undefined;
      if (outcome && outcome.status < 400 && outcome.pages.includes('login'))
        ctx.skip(
          `the activation offered no way to deny the device: after the code and the sign-in it ended at ` +
            `${outcome.url.split('?')[0]} (${outcome.reason}), so the user had nothing to deny`,
        );
      throw error;
    }
    const res = await device.poller.pollPastSlowDown({ label: 'device code poll after the user denied' });
    expectOAuthError(res, 'access_denied', {
      when: 'Polling after the user denied the device at the activation page',
      per: ctx.req.rfc8628_3_5,
    });
  },
});
