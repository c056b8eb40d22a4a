import { defineScenario } from '../../harness/scenario/scenario.ts';
import { FORGERY_REQUIRES, expectForgeriesRefused } from '../checks/index.ts';

export default defineScenario({
  id: 'jwt.alg-none-rejected',
  title:
    'An access token re-signed with alg "none" (in any spelling) is refused at userinfo, introspection and ' +
    'token exchange',
  requirements: {
    rfc8725_3_1: { spec: 'RFC 8725', section: '3.1', level: 'MUST', party: 'server' },
    rfc7518_3_6: {
      spec: 'RFC 7518',
      section: '3.6',
      level: 'MUST',
      party: 'server',
      note: 'unsecured JWSs are not accepted by default',
    },
    rfc7519_6: { spec: 'RFC 7519', section: '6', level: 'MUST', party: 'server', note: 'unsecured JWTs' },
    specAuthentication: {
      spec: 'SPEC',
      section: 'Authentication',
      level: 'MUST',
      party: 'server',
      note: 'rule 6: alg allow-list, none never accepted',
    },
  },
  severity: 'critical',
  appliesTo: 'oauth2',
  requires: FORGERY_REQUIRES,
  catches: ['alg-none-accepted', 'signature-unchecked', 'exchange-subject-unverified', 'introspection-always-active'],
  run: (ctx) => expectForgeriesRefused(ctx, ['alg-none'], { per: ctx.req.rfc8725_3_1 }),
});
