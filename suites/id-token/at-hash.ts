import { defineScenario } from '../../harness/scenario/scenario.ts';
import { codeFlowIdToken } from '../checks/index.ts';

export default defineScenario({
  id: 'id-token.at-hash',
  title: "The ID token's at_hash, when present, matches the access token issued with it",
  requirements: {
    // The value the OP puts in at_hash (§3.1.3.6: the left half of the hash of the access token).
    oidcCore_3_1_3_6: {
      spec: 'OIDC Core',
      section: '3.1.3.6',
      level: 'MUST',
      party: 'server',
      note: "at_hash is the left half of the access token's hash",
    },
    // §3.1.3.8 and §3.2.2.9 are how the client validates it.
    oidcCore_3_1_3_8: { spec: 'OIDC Core', section: '3.1.3.8', level: 'MUST', party: 'client' },
    oidcCore_3_2_2_9: { spec: 'OIDC Core', section: '3.2.2.9', level: 'MUST', party: 'client' },
    specAuthentication: {
      spec: 'SPEC',
      section: 'Authentication',
      level: 'MUST',
      party: 'server',
      note: 'rule 6: at_hash verified for ID tokens',
    },
  },
  severity: 'high',
  appliesTo: 'oidc',
  requires: {
    roles: ['confidential'],
    user: true,
    capabilities: ['grant:authorization_code', 'endpoint:authorization', 'endpoint:token'],
  },
  catches: ['at-hash-wrong'],
  async run(ctx) {
    const { idToken, accessToken } = await codeFlowIdToken(ctx);
    // OIDC Core §3.1.3.6: at_hash is OPTIONAL in the code flow; when it is there it must be right.
    if (ctx.jwt.checkAtHash(idToken, accessToken) === 'absent') {
      ctx.evidence.note(
        'The ID token from the code flow carries no at_hash, which OIDC Core §3.1.3.6 allows; there is nothing ' +
          'to compare.',
      );
    }
  },
});
