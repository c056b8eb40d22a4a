import { GRANT, defineScenario } from '../../harness/scenario.ts';
import { expectOAuthError, expectRefusalIsFor } from '../checks/index.ts';

/**
 * RFC 6749 §4.1.3 makes the token request's redirect_uri identical to the authorization request's,
 * and §5.2 names this very case under invalid_grant ("does not match the redirection URI used in
 * the authorization request"). invalid_request is for a missing or malformed parameter, and the
 * redirect_uri sent here is present and well formed, so only invalid_grant conforms.
 */
const ATTACKER_REDIRECT = 'https://attacker.example/callback';

export default defineScenario({
  id: 'code.redirect-uri-checked',
  title: "A token request with a redirect_uri other than the authorization request's gets invalid_grant",
  requirements: {
    rfc6749_4_1_3: {
      spec: 'RFC 6749',
      section: '4.1.3',
      level: 'MUST',
      party: 'server',
      note: "redirect_uri identical to the authorization request's",
    },
    rfc6749_5_2: {
      spec: 'RFC 6749',
      section: '5.2',
      level: 'MUST',
      party: 'server',
      note: 'invalid_grant: does not match the redirection URI',
    },
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: { roles: ['confidential'], user: true, capabilities: ['grant:authorization_code', 'endpoint:token'] },
  catches: ['code-redirect-unchecked'],
  async run(ctx) {
    const { code, request, pkce } = await ctx.flows.code('confidential');
    const res = await ctx.http.token(
      ctx.client('confidential'),
      {
        grant_type: GRANT.code,
        code,
        redirect_uri: ATTACKER_REDIRECT,
        code_verifier: pkce?.verifier,
      },
      { label: 'token request with another redirect_uri' },
    );
    expectOAuthError(res, 'invalid_grant', {
      when: `A token request with redirect_uri ${ATTACKER_REDIRECT} for a code requested with ${request.redirect_uri}`,
      per: ctx.req.rfc6749_4_1_3,
    });
    await expectRefusalIsFor(ctx, 'confidential', 'with another redirect_uri got invalid_grant', 'the redirect_uri', {
      redeem: true,
    });
  },
});
