import { defineScenario } from '../../harness/scenario/scenario.ts';
import { FORGERY_REQUIRES, expectForgeriesRefused } from '../checks/index.ts';

export default defineScenario({
  id: 'jwt.key-confusion-rejected',
  title: 'An access token re-signed HS256 with the JWKS public key as the secret (in every encoding) is refused',
  requirements: {
    rfc8725_3_1: { spec: 'RFC 8725', section: '3.1', level: 'MUST', party: 'server' },
    // §2.1 describes the attack; it has no normative sentence (the MUST is §3.1's).
    rfc8725_2_1: {
      spec: 'RFC 8725',
      section: '2.1',
      level: 'MAY',
      party: 'server',
      note: 'the key-confusion attack (descriptive)',
    },
    specAuthentication: {
      spec: 'SPEC',
      section: 'Authentication',
      level: 'MUST',
      party: 'server',
      note: 'rule 6: asymmetric tokens never verified as symmetric ones',
    },
  },
  severity: 'critical',
  appliesTo: 'oauth2',
  requires: { ...FORGERY_REQUIRES, capabilities: [...(FORGERY_REQUIRES.capabilities ?? []), 'endpoint:jwks'] },
  catches: ['hs256-key-confusion', 'exchange-subject-unverified', 'introspection-always-active', 'signature-unchecked'],
  run: (ctx) => expectForgeriesRefused(ctx, ['hs256-key-confusion'], { per: ctx.req.rfc8725_3_1 }),
});
