import { defineScenario } from '../../harness/scenario.ts';
import { FORGERY_REQUIRES, expectForgeriesRefused } from '../checks/index.ts';

export default defineScenario({
  id: 'jwt.embedded-key-rejected',
  title: 'An access token signed by a key named in its own header (jwk, jku, x5u) is refused',
  requirements: {
    rfc8725_3_10: { spec: 'RFC 8725', section: '3.10', level: 'SHOULD', party: 'server' },
    specAuthentication: {
      spec: 'SPEC',
      section: 'Authentication',
      level: 'MUST',
      party: 'server',
      note: 'rule 6: signature verified with a key from the key set',
    },
  },
  severity: 'critical',
  requires: FORGERY_REQUIRES,
  catches: ['trusts-embedded-jwk', 'exchange-subject-unverified', 'introspection-always-active'],
  run: (ctx) =>
    expectForgeriesRefused(ctx, ['embedded-jwk', 'jku', 'x5u'], {
      per: ctx.applies(ctx.req.specAuthentication) ? ctx.req.specAuthentication : ctx.req.rfc8725_3_10,
    }),
});
