import { CheckFailure, PreconditionError, defineScenario } from '../../harness/scenario/scenario.ts';
import { DEVICE_CAPABILITIES, describeResponse, wasAccepted } from '../checks/index.ts';

export default defineScenario({
  id: 'device.slow-down',
  title: 'A device that polls faster than the interval gets slow_down',
  requirements: {
    // §3.5 only defines slow_down; its one MUST (add 5 s to the interval) binds the client. No RFC 8628
    // sentence has the server send it, so under the rfc profile no server requirement applies (skipped).
    rfc8628_3_5: {
      spec: 'RFC 8628',
      section: '3.5',
      level: 'MUST',
      party: 'client',
      note: 'slow_down defined; the client adds 5 s to its interval',
    },
    // The service spec is silent too: LIM-2 leaves rate limits unspecified. Answering slow_down is the
    // service's option, so under the spec profile this is a MAY (a warning when absent, never a failure).
    specLimits: {
      spec: 'SPEC',
      section: 'Limits',
      level: 'MAY',
      party: 'server',
      note: 'LIM-2: rate limits unspecified; slow_down for polling too fast is optional',
    },
  },
  severity: 'low',
  appliesTo: 'oauth2',
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
          `got ${describeResponse(second)}, not error=slow_down (RFC 8628 §3.5), which ${ctx.req.specLimits} leaves ` +
          `to the service as an option.`,
        { requirement: ctx.req.specLimits, kind: wasAccepted(second) ? 'accepted' : 'refused-wrongly' },
      );
    }
  },
});
