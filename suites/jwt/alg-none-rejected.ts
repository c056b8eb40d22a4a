import { defineScenario } from '../../harness/scenario.ts';
import { FORGERY_REQUIRES, expectForgeriesRefused } from '../checks/index.ts';

export default defineScenario({
  id: 'jwt.alg-none-rejected',
  title: 'An access token re-signed with alg "none" (in any spelling) is refused at userinfo, introspection and token exchange',
  requirements: [
    { spec: 'RFC 8725', section: '3.1', level: 'MUST' },
    { spec: 'RFC 7518', section: '3.6', level: 'MUST', note: 'unsecured JWSs are not accepted by default' },
    { spec: 'RFC 7519', section: '6', level: 'MUST', note: 'unsecured JWTs' },
    { spec: 'SPEC', section: 'Authentication', level: 'MUST', note: 'rule 6: alg allow-list, none never accepted' },
  ],
  severity: 'critical',
  requires: FORGERY_REQUIRES,
  catches: ['alg-none-accepted', 'signature-unchecked'],
  run: (ctx) => expectForgeriesRefused(ctx, ['alg-none'], { per: 'RFC 8725 §3.1' }),
});
