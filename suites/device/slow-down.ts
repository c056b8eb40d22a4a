import { CheckFailure, PreconditionError, defineScenario } from '../../harness/scenario.ts';
import { DEVICE_CAPABILITIES, describeResponse, wasAccepted } from '../checks/index.ts';

export default defineScenario({
  id: 'device.slow-down',
  title: 'A device that polls faster than the interval gets slow_down',
  requirements: {
    rfc8628_3_5: {
      spec: 'RFC 8628',
      section: '3.5',
      level: 'SHOULD',
      party: 'server',
      note: 'slow_down for a device polling too fast',
    },
  },
  severity: 'low',
  requires: { roles: ['device'], capabilities: DEVICE_CAPABILITIES },
  catches: ['device-no-slow-down'],
  async run(ctx) {
    const device = await ctx.flows.device('device');
    const first = await device.poller.poll({ label: 'device code poll before the user has acted' });
    // Polled at once after the device authorization: some servers count the interval from there.
    if (first.body.error === 'slow_down') return;
    if (first.body.error !== 'authorization_pending') {
      throw new PreconditionError(
        `the first poll of a fresh device code got ${describeResponse(first)}, not authorization_pending; a pending ` +
          `device code was needed to poll too fast`,
      );
    }
    const interval = device.poller.interval;
    const gap = Math.round(device.poller.sinceLastAnswer() ?? 0);
    const second = await device.poller.poll({
      early: true,
      label: 'device code poll at once, faster than the interval',
    });
    if (second.body.error !== 'slow_down') {
      throw new CheckFailure(
        `Polling again ${gap} ms after the previous answer, within the ${interval} s interval, ` +
          `got ${describeResponse(second)}; RFC 8628 §3.5 has the server answer a device that polls too fast with ` +
          `error=slow_down.`,
        { requirement: ctx.req.rfc8628_3_5, kind: wasAccepted(second) ? 'accepted' : 'refused-wrongly' },
      );
    }
  },
});
