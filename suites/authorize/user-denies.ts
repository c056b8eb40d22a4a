import { CheckFailure, defineScenario, describeOutcome } from '../../harness/scenario/scenario.ts';
import { CODE_FLOW_CAPABILITIES, pkceParams } from '../checks/index.ts';

export default defineScenario({
  id: 'authorize.user-denies',
  title: 'A user who denies consent is sent back with error=access_denied and the state',
  requirements: {
    rfc6749_4_1_2_1: {
      spec: 'RFC 6749',
      section: '4.1.2.1',
      level: 'MUST',
      party: 'server',
      note: 'access_denied, with state when it was sent',
    },
  },
  severity: 'medium',
  appliesTo: 'oauth2',
  // The third-party client is the one a consent page is shown for (SPEC first/third-party).
  requires: { roles: ['public'], user: true, capabilities: CODE_FLOW_CAPABILITIES },
  catches: ['denial-wrong-error', 'state-dropped'],
  async run(ctx) {
    let outcome = await ctx.authorize('public', pkceParams(ctx), { consent: 'deny' });
    if (!outcome.pages.includes('consent') && outcome.kind === 'redirect' && outcome.params.code) {
      // A consent remembered from an earlier request (OIDC Core §3.1.2.4 allows it): ask again with prompt=consent
      // (OIDC Core §3.1.2.1), which an OAuth-only server ignores (RFC 6749 §3.1).
      ctx.evidence.note(
        'The first request redirected with a code without a consent page: asked again with prompt=consent.',
      );
      outcome = await ctx.authorize('public', { ...pkceParams(ctx), prompt: 'consent' }, { consent: 'deny' });
    }
    if (!outcome.pages.includes('consent')) {
      return ctx.skip(
        `the authorization request as the public client ${describeOutcome(outcome)} without a consent page, so the ` +
          `user had nothing to deny`,
      );
    }
    const when = 'After the user denied consent, the authorization response';
    if (outcome.kind !== 'redirect') {
      throw new CheckFailure(
        `${when} ${describeOutcome(outcome)}; RFC 6749 §4.1.2.1 requires a redirect to the redirect_uri with ` +
          `error=access_denied.`,
        { requirement: ctx.req.rfc6749_4_1_2_1, kind: 'refused-wrongly' },
      );
    }
    const { error, code, state } = outcome.params;
    if (code !== undefined || error !== 'access_denied') {
      const got =
        code !== undefined ? 'carried a code' : error === undefined ? 'carried no error' : `carried error=${error}`;
      throw new CheckFailure(
        `${when} ${got}; RFC 6749 §4.1.2.1 requires error=access_denied ("the resource owner or authorization ` +
          `server denied the request").`,
        { requirement: ctx.req.rfc6749_4_1_2_1, kind: code !== undefined ? 'accepted' : 'refused-wrongly' },
      );
    }
    if (state !== outcome.request.state) {
      throw new CheckFailure(
        `${when} carried error=access_denied but state ${state === undefined ? '(none)' : JSON.stringify(state)}, ` +
          `not the state sent; RFC 6749 §4.1.2.1 requires the exact state.`,
        { requirement: ctx.req.rfc6749_4_1_2_1, kind: 'refused-wrongly' },
      );
    }
  },
});
