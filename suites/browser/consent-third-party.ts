import { defineScenario } from '../../harness/scenario/scenario.ts';
import { expectThirdPartyConsent } from '../checks/index.ts';

/** consent.third-party-required in Chromium: the consent page is one a real browser shows and a user answers. */
export default defineScenario({
  id: 'browser.consent-third-party',
  title: 'In Chromium, a third-party client gets a consent page before the code',
  requirements: {
    specFirstPartyVersusThirdParty: {
      spec: 'SPEC',
      section: 'First-party versus third-party',
      level: 'MUST',
      party: 'server',
      note: 'consent screen: required for third-party',
    },
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: {
    optionalRoles: ['public', 'confidential', 'confidential2'],
    browser: true,
    user: true,
    capabilities: ['grant:authorization_code', 'endpoint:authorization'],
  },
  catches: ['consent-skipped'],
  run: (ctx) =>
    expectThirdPartyConsent(ctx, ctx.browser.authorize, ctx.req.specFirstPartyVersusThirdParty, ' in Chromium'),
});
