import { defineScenario } from '../../harness/scenario/scenario.ts';
import { codeFlowIdToken } from '../checks/index.ts';

export default defineScenario({
  id: 'id-token.claims',
  title: 'The ID token has a valid iss, sub, aud, iat and exp, and echoes the nonce',
  requirements: {
    oidcCore_2: { spec: 'OIDC Core', section: '2', level: 'MUST', party: 'server' },
    // ID Token Validation: how the client checks what §2 obliges the OP to put in.
    oidcCore_3_1_3_7: { spec: 'OIDC Core', section: '3.1.3.7', level: 'MUST', party: 'client' },
  },
  severity: 'high',
  appliesTo: 'oidc',
  requires: {
    roles: ['confidential'],
    user: true,
    capabilities: ['grant:authorization_code', 'endpoint:authorization', 'endpoint:token'],
  },
  catches: ['id-token-wrong-aud'],
  async run(ctx) {
    const { client, idToken, nonce } = await codeFlowIdToken(ctx);
    // The claims alone: the signature is id-token.signature's, at_hash id-token.at-hash's.
    ctx.jwt.validateIdTokenClaims(idToken, { client, nonce });
  },
});
