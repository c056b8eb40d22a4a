import { DEFAULT_POLL_INTERVAL_SECONDS, GRANT, defineScenario } from '../../harness/scenario/scenario.ts';
import { expectDeviceAuthorizationResponse, expectStatus } from '../checks/index.ts';

export default defineScenario({
  id: 'device.authorization',
  title:
    'The device authorization endpoint returns device_code, user_code, verification_uri and expires_in (and ' +
    'interval, if any, in seconds)',
  requirements: { rfc8628_3_2: { spec: 'RFC 8628', section: '3.2', level: 'MUST', party: 'server' } },
  severity: 'medium',
  appliesTo: 'oauth2',
  requires: { roles: ['device'], capabilities: [`grant:${GRANT.device}`, 'endpoint:deviceAuthorization'] },
  async run(ctx) {
    const res = await ctx.flows.deviceAuthorization('device');
    expectStatus(res, 200, { when: 'The device authorization request', per: ctx.req.rfc8628_3_2 });
    expectDeviceAuthorizationResponse(res.body, ctx.req.rfc8628_3_2);
    if (res.body.interval === undefined) {
      ctx.evidence.note(
        `No interval in the response: a device polls every ${DEFAULT_POLL_INTERVAL_SECONDS} seconds, the default of ` +
          `RFC 8628 §3.2.`,
      );
    }
  },
});
