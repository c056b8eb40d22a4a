import { CheckFailure, defineScenario } from '../../harness/scenario/scenario.ts';
import { DEVICE_CAPABILITIES, expectBearer, expectTokenResponse } from '../checks/index.ts';
import { hasScopeToken } from '../../protocol/scope.ts';

export default defineScenario({
  id: 'device.approved',
  title: 'After the user approves the device at the activation page, the next poll returns tokens and a refresh token',
  requirements: {
    specStatesAndTransitions: {
      spec: 'SPEC',
      section: 'States and transitions',
      level: 'MUST',
      party: 'server',
      note: 'device code: pending → success',
    },
    specWhatTheServiceDoes: {
      spec: 'SPEC',
      section: 'What the service does',
      level: 'MUST',
      party: 'server',
      note: 'grant table: the device code grant issues a refresh token',
    },
    rfc8628_3_5: { spec: 'RFC 8628', section: '3.5', level: 'MUST', party: 'server' },
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: { roles: ['device'], user: true, capabilities: DEVICE_CAPABILITIES },
  async run(ctx) {
    const device = await ctx.flows.device('device');
    await device.activate('approve');
    const res = await device.poller.pollPastSlowDown({ label: 'device code poll after approval' });
    const tokens = expectTokenResponse(res, {
      when: 'The first poll after the user approved the device',
      per: ctx.req.rfc8628_3_5,
    });
    expectBearer(tokens, { when: 'The device code grant', per: ctx.req.rfc8628_3_5 });
    // RFC 6749 §5.1 makes refresh_token optional; the SPEC's grant table requires one.
    if (ctx.profile === 'spec' && typeof tokens.refresh_token !== 'string') {
      const scope = ctx.client('device').scope;
      const hint = hasScopeToken(scope, 'offline_access')
        ? ''
        : ` (the request's scope "${scope}" had no offline_access, which some IdPs want first)`;
      throw new CheckFailure(
        `The token response after the user approved the device has no refresh_token${hint}; the SPEC's grant table ` +
          `says the device code grant issues one.`,
        { requirement: ctx.req.specWhatTheServiceDoes, kind: 'refused-wrongly' },
      );
    }
  },
});
