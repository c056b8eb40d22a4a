import { defineScenario } from '../../harness/scenario/scenario.ts';
import { codeFlowIdToken } from '../checks/index.ts';

export default defineScenario({
  id: 'id-token.signature',
  title: 'The ID token is signed with an advertised asymmetric alg (never none) by the JWKS key its kid names',
  requirements: {
    // §2: ID Tokens MUST be signed using JWS and MUST NOT use none (the OP's obligation).
    oidcCore_2: {
      spec: 'OIDC Core',
      section: '2',
      level: 'MUST',
      party: 'server',
      note: 'signed with JWS; never alg none',
    },
    // §3.1.3.7 and RFC 8725 §3.1 bind the party that validates the ID token: the client.
    oidcCore_3_1_3_7: { spec: 'OIDC Core', section: '3.1.3.7', level: 'MUST', party: 'client' },
    rfc8725_3_1: { spec: 'RFC 8725', section: '3.1', level: 'MUST', party: 'client' },
    oidcCore_10_1: {
      spec: 'OIDC Core',
      section: '10.1',
      level: 'MUST',
      party: 'server',
      note: 'the key chosen by kid',
    },
  },
  severity: 'critical',
  appliesTo: 'oidc',
  requires: {
    roles: ['confidential'],
    user: true,
    capabilities: ['grant:authorization_code', 'endpoint:authorization', 'endpoint:token', 'endpoint:jwks'],
  },
  catches: ['id-token-unknown-kid'],
  async run(ctx) {
    const { idToken } = await codeFlowIdToken(ctx);
    await ctx.jwt.verifyIdTokenSignature(idToken);
  },
});
