import { CheckFailure, defineScenario } from '../../harness/scenario/scenario.ts';
import { DEVICE_CAPABILITIES, describeResponse } from '../checks/index.ts';

export default defineScenario({
  id: 'device.code-single-use',
  title: 'Polling again with a device code that already got its tokens gets an error, not a second set of tokens',
  requirements: { rfc8628_3_5: { spec: 'RFC 8628', section: '3.5', level: 'MUST', party: 'server' } },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: { roles: ['device'], user: true, capabilities: DEVICE_CAPABILITIES },
  catches: ['device-code-reuse'],
  async run(ctx) {
    const device = await ctx.flows.device('device');
    await device.tokens();
    // After the interval, as a device would poll: any error answer is right, tokens are not.
    const again = await device.poller.pollPastSlowDown({ label: 'device code poll after the tokens were issued' });
    if (again.status < 400 || typeof again.body.access_token === 'string') {
      throw new CheckFailure(
        `Polling again with a device code that had already been redeemed got ${describeResponse(again)}; RFC 8628 ` +
          `§3.5 ends the device authorization session with the token response, so a second poll must get an error, ` +
          `not a second set of tokens.`,
        { requirement: ctx.req.rfc8628_3_5 },
      );
    }
  },
});
