import { CheckFailure, GRANT, defineScenario } from '../../harness/scenario/scenario.ts';
import {
  CODE_FLOW_ROLES,
  expectAuthorizationCode,
  expectBearer,
  expectIdToken,
  expectTokenResponse,
  findClient,
  partyClient,
  codeFlowScope,
} from '../checks/index.ts';

/**
 * The code flow as a user meets it: the IdP's real login (and consent) pages in Chromium, the
 * redirect to the redirect_uri caught in the browser, then the code redeemed with its verifier.
 * A third-party client first, so the consent page is part of the walk.
 */
export default defineScenario({
  id: 'browser.code-flow',
  title: 'The code flow with PKCE works through the real login and consent pages in Chromium',
  requirements: {
    oidcCore_3_1: { spec: 'OIDC Core', section: '3.1', level: 'MUST', party: 'server' },
    rfc6749_4_1: {
      spec: 'RFC 6749',
      section: '4.1',
      level: 'MUST',
      party: 'server',
      note: 'the code flow (an OAuth 2.0 authorization server)',
    },
    rfc6749_4_1_2: {
      spec: 'RFC 6749',
      section: '4.1.2',
      level: 'MUST',
      party: 'server',
      note: 'state returned unchanged',
    },
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: {
    optionalRoles: ['public', 'confidential', 'confidential2'],
    browser: true,
    user: true,
    capabilities: ['grant:authorization_code', 'endpoint:authorization', 'endpoint:token'],
  },
  catches: ['state-dropped'],
  async run(ctx) {
    const flow = ctx.target.kind.protocol === 'oauth2' ? ctx.req.rfc6749_4_1 : ctx.req.oidcCore_3_1;
    const client = partyClient(ctx, false) ?? findClient(ctx, CODE_FLOW_ROLES, (c) => !!c.redirectUri);
    if (!client) return ctx.skip('needs a code-flow client with a redirectUri (public, confidential or confidential2)');
    const pkce = ctx.pkce.create();
    const nonce = ctx.random();
    const state = ctx.random();
    const auth = await ctx.browser.authorize(client.role, {
      scope: codeFlowScope(ctx.target, client.scope),
      state,
      nonce,
      code_challenge: pkce.challenge,
      code_challenge_method: pkce.method,
    });
    ctx.evidence.note(
      `The browser passed ` +
        `${auth.pages.length ? `the ${auth.pages.join(', ')} page${auth.pages.length > 1 ? 's' : ''}` : 'no page'} ` +
        `as the ${client.role} client.`,
      'pages',
    );
    const code = expectAuthorizationCode(auth, {
      when: `The authorization request in Chromium as the ${client.role} client`,
      per: flow,
    });
    if (auth.kind === 'redirect' && auth.params.state !== state) {
      const got = auth.params.state === undefined ? 'no state' : 'a different state';
      throw new CheckFailure(
        `The redirect to the redirect_uri in the browser carried ${got} for the request's state; RFC 6749 §4.1.2 ` +
          `requires the exact value sent.`,
        { requirement: ctx.req.rfc6749_4_1_2, kind: 'refused-wrongly' },
      );
    }
    const res = await ctx.http.token(
      client,
      {
        grant_type: GRANT.code,
        code,
        redirect_uri: auth.request.redirect_uri,
        code_verifier: pkce.verifier,
      },
      { label: 'token request (the code from the browser)' },
    );
    const tokens = expectTokenResponse(res, {
      when: 'Redeeming the code from the browser with its code_verifier',
      per: flow,
    });
    expectBearer(tokens, { when: 'The token endpoint', per: flow });
    if (ctx.target.kind.protocol === 'oauth2') {
      ctx.evidence.note(`No ID token is judged: ${ctx.target.kind.why} (an OAuth 2.0 authorization server).`);
      return;
    }
    const idToken = expectIdToken(tokens, { when: 'The token endpoint', per: ctx.req.oidcCore_3_1 });
    await ctx.jwt.validateIdToken(idToken, { client, nonce, accessToken: tokens.access_token });
  },
});
