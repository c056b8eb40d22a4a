import { defineScenario } from '../../harness/scenario.ts';
import { FORGERY_REQUIRES, expectForgeriesRefused } from '../checks/index.ts';

export default defineScenario({
  id: 'jwt.signature-tamper-rejected',
  title: 'An access token with a changed payload, a changed signature or no signature is refused',
  requirements: [
    { spec: 'RFC 7515', section: '5.2', level: 'MUST' },
    { spec: 'SPEC', section: 'Authentication', level: 'MUST', note: 'rule 6: signature verified with a key from the key set' },
  ],
  severity: 'critical',
  requires: FORGERY_REQUIRES,
  catches: ['signature-unchecked'],
  run: (ctx) => expectForgeriesRefused(ctx, ['signature-stripped', 'signature-changed', 'claims-changed'], { per: 'RFC 7515 §5.2 and the SPEC\'s JWT validation table' }),
});
