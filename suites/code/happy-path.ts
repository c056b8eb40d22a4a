import { GRANT, defineScenario } from '../../harness/scenario/scenario.ts';
import {
  expectAuthorizationCode,
  expectBearer,
  expectIdToken,
  expectTokenResponse,
  codeFlowScope,
} from '../checks/index.ts';

export default defineScenario({
  id: 'code.happy-path',
  title:
    'The code flow with PKCE returns an access token, token_type Bearer and, from an OpenID provider, a valid ID ' +
    'token for openid',
  requirements: {
    rfc6749_4_1: { spec: 'RFC 6749', section: '4.1', level: 'MUST', party: 'server' },
    rfc7636_4_6: { spec: 'RFC 7636', section: '4.6', level: 'MUST', party: 'server' },
    oidcCore_3_1: { spec: 'OIDC Core', section: '3.1', level: 'MUST', party: 'server' },
    specTokenEndpoint: { spec: 'SPEC', section: 'Token endpoint', level: 'MUST', party: 'server' },
  },
  severity: 'critical',
  appliesTo: 'oauth2',
  catches: ['at-hash-wrong', 'id-token-unknown-kid', 'id-token-wrong-aud'],
  requires: {
    roles: ['confidential'],
    user: true,
    capabilities: ['grant:authorization_code', 'endpoint:authorization', 'endpoint:token'],
  },
  async run(ctx) {
    const client = ctx.client('confidential');
    const pkce = ctx.pkce.create();
    const nonce = ctx.random();
    const auth = await ctx.authorize(
      'confidential',
      {
        scope: codeFlowScope(ctx.target, client.scope),
        nonce,
        code_challenge: pkce.challenge,
        code_challenge_method: pkce.method,
      },
      { session: 'shared' },
    );
    const code = expectAuthorizationCode(auth, { when: 'The authorization request', per: ctx.req.rfc6749_4_1 });

    const res = await ctx.http.token(client, {
      grant_type: GRANT.code,
      code,
      redirect_uri: auth.request.redirect_uri,
      code_verifier: pkce.verifier,
    });
    const tokens = expectTokenResponse(res, {
      when: 'Redeeming the code with its code_verifier',
      per: ctx.req.rfc6749_4_1,
    });
    expectBearer(tokens, { when: 'The token endpoint', per: ctx.req.rfc6749_4_1 });
    if (ctx.target.kind.protocol === 'oauth2') {
      ctx.evidence.note(`No ID token is judged: ${ctx.target.kind.why} (an OAuth 2.0 authorization server).`);
      return;
    }
    const idToken = expectIdToken(tokens, { when: 'The token endpoint', per: ctx.req.oidcCore_3_1 });
    await ctx.jwt.validateIdToken(idToken, { client, nonce, accessToken: tokens.access_token });
  },
});
