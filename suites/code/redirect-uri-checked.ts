import { GRANT, defineScenario } from '../../harness/scenario/scenario.ts';
import { differingRedirectUris } from '../../generators/index.ts';
import { expectOAuthError, expectRefusalIsFor } from '../checks/index.ts';

/**
 * RFC 6749 §4.1.3 makes the token request's redirect_uri identical to the authorization request's,
 * and §5.2 names this very case under invalid_grant ("does not match the redirection URI used in
 * the authorization request"). invalid_request is for a missing or malformed parameter, and the
 * redirect_uri sent here is present and well formed, so only invalid_grant conforms.
 * "Identical" is a string comparison: a URI that differs by an added query, another port, another path, a trailing
 * slash or the case of its path is another URI (generators/redirect-uri.ts), and so is a foreign one.
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
  catches: ['code-redirect-unchecked', 'code-redirect-loose'],
  async run(ctx) {
    const first = await ctx.flows.code('confidential');
    const used = first.request.redirect_uri;
    if (used === undefined) return ctx.skip('the authorization request carried no redirect_uri to compare with');
    const variants = [...differingRedirectUris(used), { how: 'a foreign origin', uri: ATTACKER_REDIRECT }];
    for (const [i, { how, uri }] of variants.entries()) {
      await ctx.softly(async () => {
        // A code of its own for each: a refused redemption may spend the code.
        const { code, pkce } = i === 0 ? first : await ctx.flows.code('confidential');
        const res = await ctx.http.token(
          ctx.client('confidential'),
          { grant_type: GRANT.code, code, redirect_uri: uri, code_verifier: pkce?.verifier },
          { label: `token request with a redirect_uri that differs by ${how}` },
        );
        expectOAuthError(res, 'invalid_grant', {
          when: `A token request with redirect_uri ${uri} (${how}) for a code requested with ${used}`,
          per: ctx.req.rfc6749_4_1_3,
        });
      });
    }
    await expectRefusalIsFor(ctx, 'confidential', 'with another redirect_uri got invalid_grant', 'the redirect_uri', {
      redeem: true,
    });
  },
});
