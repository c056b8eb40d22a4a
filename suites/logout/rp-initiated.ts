import { CheckFailure, PreconditionError, defineScenario, describeOutcome } from '../../harness/scenario/scenario.ts';
import {
  CODE_FLOW_CAPABILITIES,
  NO_INTERACTION_ERRORS,
  authorizeInSession,
  endSessionWalk,
  registeredPostLogoutUri,
  signIn,
} from '../checks/index.ts';

/** A post_logout_redirect_uri that no client registers (never fetched: the walk stops at it). */
const UNREGISTERED = 'https://attacker.example.test/logged-out';

export default defineScenario({
  id: 'logout.rp-initiated',
  title:
    'RP-initiated logout redirects only to a registered post_logout_redirect_uri, returns state, and ends the session',
  requirements: {
    rpLogout_3: {
      spec: 'OIDC RP-Initiated Logout',
      section: '3',
      level: 'MUST',
      party: 'server',
      note: 'no redirection unless post_logout_redirect_uri exactly matches a registered one',
    },
    rpLogout_2: {
      spec: 'OIDC RP-Initiated Logout',
      section: '2',
      level: 'MUST',
      party: 'server',
      note: 'state is passed back; the End-User is logged out',
    },
  },
  severity: 'high',
  appliesTo: 'oidc',
  requires: { roles: ['confidential'], user: true, capabilities: [...CODE_FLOW_CAPABILITIES, 'endpoint:endSession'] },
  catches: ['logout-open-redirect', 'logout-keeps-session'],
  async run(ctx) {
    const client = ctx.client('confidential');
    const registered = registeredPostLogoutUri(ctx);
    const stopAt = [registered, UNREGISTERED];

    // 1. An unregistered post_logout_redirect_uri: the IdP must not send the user there (an open redirector otherwise).
    await ctx.softly(async () => {
      const first = await signIn(ctx, 'confidential');
      const outcome = await endSessionWalk(
        ctx,
        first.session,
        {
          id_token_hint: first.idToken,
          client_id: client.clientId,
          post_logout_redirect_uri: UNREGISTERED,
          state: ctx.random(8),
        },
        stopAt,
      );
      const target = outcome.kind === 'redirect' ? outcome.url : outcome.location;
      if (target !== undefined && new URL(target).origin === new URL(UNREGISTERED).origin) {
        throw new CheckFailure(
          `The logout request with the unregistered post_logout_redirect_uri ${UNREGISTERED} redirected the user ` +
            `to ${target}; OIDC RP-Initiated Logout §3 forbids post-logout redirection to a URI that does not ` +
            `exactly match a registered one.`,
          { requirement: ctx.req.rpLogout_3 },
        );
      }
    });

    // 2. The registered URI: back there with state, and the session is over.
    const signedIn = await signIn(ctx, 'confidential');
    const state = ctx.random(12);
    const outcome = await endSessionWalk(
      ctx,
      signedIn.session,
      { id_token_hint: signedIn.idToken, client_id: client.clientId, post_logout_redirect_uri: registered, state },
      stopAt,
    );
    if (outcome.kind !== 'redirect' || outcome.url.split(/[?#]/)[0] !== registered.split(/[?#]/)[0]) {
      throw new CheckFailure(
        `The logout request with the registered post_logout_redirect_uri and a valid ` +
          `id_token_hint ${describeOutcome({ ...outcome, request: {} })}; OIDC RP-Initiated Logout §2 requires the ` +
          `OP to redirect to it after logging the user out.`,
        { requirement: ctx.req.rpLogout_2, kind: 'refused-wrongly' },
      );
    }
    if (outcome.params.state !== state) {
      throw new CheckFailure(
        `The post-logout redirect carried ` +
          `state ${outcome.params.state === undefined ? '(none)' : JSON.stringify(outcome.params.state)}, not the ` +
          `state the RP sent; OIDC RP-Initiated Logout §2 requires the OP to pass it back.`,
        { requirement: ctx.req.rpLogout_2, kind: 'refused-wrongly' },
      );
    }
    const { outcome: after } = await authorizeInSession(
      ctx,
      'confidential',
      signedIn.session,
      { prompt: 'none' },
      { interact: false },
    );
    if (after.kind === 'redirect' && after.params.code) {
      throw new CheckFailure(
        'After the logout redirected back, a prompt=none request in the same browser still got a code: the session ' +
          'did not end; OIDC RP-Initiated Logout §2 requires the OP to log the End-User out.',
        { requirement: ctx.req.rpLogout_2 },
      );
    }
    if (after.kind !== 'redirect' || !NO_INTERACTION_ERRORS.includes(after.params.error ?? '')) {
      throw new PreconditionError(
        `after the logout, the prompt=none request ${describeOutcome(after)}; login_required was expected, so ` +
          `whether the session ended cannot be told`,
      );
    }
  },
});
