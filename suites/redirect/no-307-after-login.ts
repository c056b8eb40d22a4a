import { CheckFailure, PreconditionError, defineScenario, describeOutcome } from '../../harness/scenario/scenario.ts';
import { codeFlowClient } from '../checks/index.ts';

/**
 * The login form is a POST with the user's credentials. A 307 (or 308) answer makes the browser
 * send the same POST, credentials included, to wherever it points — on the way to the client.
 */
export default defineScenario({
  id: 'redirect.no-307-after-login',
  title: 'The redirect that answers the login form POST is never 307 (or 308), which would re-post the credentials',
  requirements: {
    rfc9700_4_12: {
      spec: 'RFC 9700',
      section: '4.12',
      level: 'MUST',
      party: 'server',
      note: 'no HTTP 307 when redirecting a request that may carry credentials',
    },
    rfc9700_4_12_303: { spec: 'RFC 9700', section: '4.12', level: 'SHOULD', party: 'server', note: '303 See Other' },
    fapi2_5_3_2_2: {
      spec: 'FAPI 2.0 SP',
      section: '5.3.2.2',
      level: 'MUST',
      party: 'server',
      note: 'no HTTP 307 when redirecting a request that contains user credentials',
    },
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: {
    optionalRoles: ['keyed', 'confidential', 'public', 'confidential2'],
    user: true,
    capabilities: ['endpoint:authorization'],
  },
  catches: ['redirect-307-after-login'],
  async run(ctx) {
    const client =
      codeFlowClient(ctx) ?? ctx.skip('needs a code-flow client with a redirect URI (keyed, confidential or public)');
    const pkce = ctx.pkce.create();
    const outcome = await ctx.authorize(client.role, {
      code_challenge: pkce.challenge,
      code_challenge_method: pkce.method,
    });
    const redirects =
      outcome.redirects ??
      ctx.skip(`the ${ctx.login.name} login driver does not report redirects (the form driver does)`);
    ctx.evidence.note(
      redirects.map((r) => `${r.method} ${r.url.split('?')[0]} → ${r.status}`).join('\n') || '(none)',
      'redirects on the way',
    );
    // RFC 9700 §4.12 is about requests that carry the user's credentials: a consent or account POST without them is
    // not judged (a POST the login driver could not look into is taken as carrying them).
    const afterPost = redirects.filter((r) => r.method === 'POST' && r.credentials !== false);
    const other = redirects.filter((r) => r.method === 'POST' && r.credentials === false);
    if (other.length)
      ctx.evidence.note(
        other.map((r) => `${r.url.split('?')[0]} → ${r.status}`).join('\n'),
        'POSTs without credentials, not judged',
      );
    if (afterPost.length === 0) {
      // No premise, no verdict: a sign-in by script (an XHR, a single-page app) posts no form the IdP could answer with
      // a redirect. A walk that never got to the redirect URI did not sign in at all: that is a set-up problem.
      if (outcome.kind === 'redirect' && outcome.params.code)
        return ctx.skip(
          'the authorization reached the redirect URI with a code without a form POST of the credentials answered ' +
            'by a redirect (the credentials went by script, or no sign-in was asked for), so there is no such ' +
            'redirect to judge',
        );
      throw new PreconditionError(
        `no form POST was answered with a redirect, and the authorization ${describeOutcome(outcome)}; a completed ` +
          'sign-in was needed to judge its redirects',
      );
    }
    for (const r of afterPost) {
      const where = `The POST to ${r.url.split('?')[0]}`;
      if (r.status === 307 || r.status === 308) {
        throw new CheckFailure(
          `${where} (the login form, with the user's credentials) was answered ${r.status}, so the browser re-posts ` +
            `the credentials to ${new URL(r.location).origin}; ${ctx.req.rfc9700_4_12} forbids 307 for such a ` +
            `request (308 keeps the method too).`,
          { requirement: ctx.req.rfc9700_4_12 },
        );
      }
      if (r.status !== 303) {
        await ctx.softly(() => {
          throw new CheckFailure(
            `${where} was answered ${r.status}; ${ctx.req.rfc9700_4_12} asks for 303 See Other, which always turns ` +
              `the next request into a GET.`,
            { requirement: ctx.req.rfc9700_4_12_303 },
          );
        });
      }
    }
  },
});
