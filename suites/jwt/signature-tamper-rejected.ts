import { defineScenario } from '../../harness/scenario/scenario.ts';
import { FORGERY_REQUIRES, expectForgeriesRefused } from '../checks/index.ts';

export default defineScenario({
  id: 'jwt.signature-tamper-rejected',
  title: 'An access token with a changed payload, a changed signature or no signature is refused',
  requirements: {
    rfc7515_5_2: { spec: 'RFC 7515', section: '5.2', level: 'MUST', party: 'server' },
    specAuthentication: {
      spec: 'SPEC',
      section: 'Authentication',
      level: 'MUST',
      party: 'server',
      note: 'rule 6: signature verified with a key from the key set',
    },
  },
  severity: 'critical',
  appliesTo: 'oauth2',
  requires: FORGERY_REQUIRES,
  catches: ['signature-unchecked', 'exchange-subject-unverified', 'introspection-always-active'],
  run: (ctx) =>
    expectForgeriesRefused(ctx, ['signature-stripped', 'signature-changed', 'claims-changed'], {
      per: ctx.req.rfc7515_5_2,
    }),
});
