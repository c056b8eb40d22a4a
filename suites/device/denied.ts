import { defineScenario } from '../../harness/scenario.ts';
import { DEVICE_CAPABILITIES, expectOAuthError } from '../checks/index.ts';

export default defineScenario({
  id: 'device.denied',
  title: 'After the user denies the device at the activation page, polling gets access_denied',
  requirements: { rfc8628_3_5: { spec: 'RFC 8628', section: '3.5', level: 'MUST', party: 'server' } },
  severity: 'high',
  requires: { roles: ['device'], user: true, capabilities: DEVICE_CAPABILITIES },
  catches: ['device-denial-ignored'],
  async run(ctx) {
    const device = await ctx.flows.device('device');
    await device.activate('deny');
    const res = await device.poller.pollPastSlowDown({ label: 'device code poll after the user denied' });
    expectOAuthError(res, 'access_denied', {
      when: 'Polling after the user denied the device at the activation page',
      per: ctx.req.rfc8628_3_5,
    });
  },
});
