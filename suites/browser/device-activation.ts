import { CheckFailure, defineScenario } from '../../harness/scenario/scenario.ts';
import { DEVICE_CAPABILITIES, expectBearer, expectTokenResponse } from '../checks/index.ts';

/**
 * RFC 8628 §3.3 as the user does it: the verification_uri opened in Chromium, the user code
 * typed into the activation page, the login, the approval; then the device's next poll gets tokens.
 */
export default defineScenario({
  id: 'browser.device-activation',
  title: 'The user types the user code into the activation page in Chromium, approves, and the device gets tokens',
  requirements: {
    rfc8628_3_3: {
      spec: 'RFC 8628',
      section: '3.3',
      level: 'MUST',
      party: 'server',
      note: 'user interaction at the verification URI',
    },
    rfc8628_3_5: {
      spec: 'RFC 8628',
      section: '3.5',
      level: 'MUST',
      party: 'server',
      note: 'tokens once the user has approved',
    },
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: { browser: true, roles: ['device'], user: true, capabilities: DEVICE_CAPABILITIES },
  async run(ctx) {
    const device = await ctx.browser.flows.device('device');
    // The page this scenario is about is the one the code is typed into: verification_uri, not
    // verification_uri_complete.
    const outcome = await device.activate('approve', { useComplete: false });
    if (!outcome.pages.includes('user-code')) {
      throw new CheckFailure(
        `The activation in Chromium at ${device.authorization.verification_uri} never showed a page to type the ` +
          `user code into (it ended at "${outcome.headline}": ${outcome.reason}); RFC 8628 §3.3 has the user enter ` +
          `the code at the verification URI.`,
        { requirement: ctx.req.rfc8628_3_3, kind: 'refused-wrongly' },
      );
    }
    ctx.evidence.note(
      `The browser passed the ${outcome.pages.join(', ')} pages and ended on "${outcome.headline}" ` +
        `(${outcome.url.split('?')[0]}).`,
      'activation',
    );
    const res = await device.poller.pollPastSlowDown({ label: 'device code poll after the approval in the browser' });
    const tokens = expectTokenResponse(res, {
      when: 'The first poll after the user approved the device in Chromium',
      per: ctx.req.rfc8628_3_5,
    });
    expectBearer(tokens, { when: 'The device code grant', per: ctx.req.rfc8628_3_5 });
  },
});
