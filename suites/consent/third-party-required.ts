import { defineScenario } from '../../harness/scenario/scenario.ts';
import { expectThirdPartyConsent } from '../checks/index.ts';

export default defineScenario({
  id: 'consent.third-party-required',
  title: 'A third-party client gets a consent page before the code (first-party clients may skip it)',
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
    user: true,
    capabilities: ['grant:authorization_code', 'endpoint:authorization'],
  },
  catches: ['consent-skipped'],
  run: (ctx) => expectThirdPartyConsent(ctx, ctx.authorize, ctx.req.specFirstPartyVersusThirdParty),
});
