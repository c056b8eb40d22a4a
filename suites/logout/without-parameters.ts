import {
  CheckFailure,
  JudgementError,
  PreconditionError,
  defineScenario,
  describeOutcome,
} from '../../harness/scenario/scenario.ts';
import {
  CODE_FLOW_CAPABILITIES,
  NO_INTERACTION_ERRORS,
  authorizeInSession,
  NO_HINT_REDIRECT,
  endSessionWalk,
  redirectedTo,
  signIn,
} from '../checks/index.ts';

const NOT_LOGGED_OUT =
  'OIDC RP-Initiated Logout §2 requires the OP to ask the End-User when no id_token_hint was given, and to log out ' +
  'the End-User who agrees (the harness agrees to any confirmation page).';

export default defineScenario({
  id: 'logout.without-parameters',
  title:
    'A logout with no parameters, or with state alone, ends the session (after asking the user, if the IdP asks) ' +
    "and redirects to no client's post_logout_redirect_uri",
  requirements: {
    // "the OP MUST ask the End-User this question if an id_token_hint was not provided ... If the End-User says
    // "yes", then the OP MUST log out the End-User." The driver says yes to any confirmation page.
    rpLogout_2: {
      spec: 'OIDC RP-Initiated Logout',
      section: '2',
      level: 'MUST',
      party: 'server',
      note: 'without id_token_hint the OP asks the End-User, and logs out the End-User who agrees',
    },
    rpLogout_3_noHint: NO_HINT_REDIRECT,
  },
  severity: 'medium',
  appliesTo: 'oidc',
  requires: { roles: ['confidential'], user: true, capabilities: [...CODE_FLOW_CAPABILITIES, 'endpoint:endSession'] },
  catches: ['logout-needs-parameters', 'logout-keeps-session'],
  async run(ctx) {
    const client = ctx.client('confidential');
    // Where a redirect must not go: the client's post-logout and redirect URIs (never loaded).
    const clientUris = [client.postLogoutRedirectUri, client.redirectUri].filter((u): u is string => !!u);
    const requests: { what: string; params: Record<string, string> }[] = [
      { what: 'no parameters', params: {} },
      { what: 'state alone', params: { state: ctx.random(8) } },
    ];
    for (const request of requests) {
      const signedIn = await signIn(ctx, 'confidential');
      const silent = () =>
        authorizeInSession(ctx, 'confidential', signedIn.session, { prompt: 'none' }, { interact: false });
      // The control: before the logout, the same prompt=none request gets a code (OIDC Core §3.1.2.6: and
      // login_required once the session ended).
      const { outcome: before } = await silent();
      if (before.kind !== 'redirect' || !before.params.code) {
        throw new JudgementError(
          `before the logout, the prompt=none request in the signed-in session ${describeOutcome(before)}, so ` +
            `whether the logout with ${request.what} ended the session cannot be told`,
        );
      }

      const outcome = await endSessionWalk(ctx, signedIn.session, request.params, clientUris);
      ctx.evidence.note(`The logout with ${request.what} ${describeOutcome({ ...outcome, request: {} })}.`);
      await ctx.softly(
        () => {
          const back = clientUris.find((uri) => redirectedTo(outcome, uri));
          if (!back) return;
          throw new CheckFailure(
            `The logout with ${request.what} redirected the user to the client's ${back}; no ` +
              `post_logout_redirect_uri was asked for, and OIDC RP-Initiated Logout §3 says the OP MUST NOT ` +
              `perform post-logout redirection without an id_token_hint unless it has other means of confirming ` +
              `the target.`,
            { requirement: ctx.req.rpLogout_3_noHint },
          );
        },
        { requirement: ctx.req.rpLogout_3_noHint },
      );

      const { outcome: after } = await silent();
      if (after.kind === 'redirect' && after.params.code) {
        throw new CheckFailure(
          `After the logout with ${request.what} (${describeOutcome({ ...outcome, request: {} })}), a prompt=none ` +
            `request in the same browser still got a code: the session did not end. ${NOT_LOGGED_OUT}`,
          { requirement: ctx.req.rpLogout_2 },
        );
      }
      if (after.kind === 'redirect' && NO_INTERACTION_ERRORS.includes(after.params.error ?? '')) continue;
      // prompt=none answered otherwise (some IdPs show their sign-in page to it): the same request without prompt,
      // signing no one in, tells a live session (a code) from an ended one (the sign-in page).
      const { outcome: plain } = await authorizeInSession(ctx, 'confidential', signedIn.session, {}, { signIn: false });
      if (plain.kind === 'page' && plain.signInPage) {
        ctx.evidence.note(
          `After the logout with ${request.what}, prompt=none ${describeOutcome(after)}; the same request without ` +
            'prompt stopped at the sign-in page: the session ended.',
        );
        continue;
      }
      if (plain.kind === 'redirect' && plain.params.code) {
        throw new CheckFailure(
          `After the logout with ${request.what} (${describeOutcome({ ...outcome, request: {} })}), an ` +
            `authorization request in the same browser got a code without a sign-in page: the session did not ` +
            `end. ${NOT_LOGGED_OUT}`,
          { requirement: ctx.req.rpLogout_2 },
        );
      }
      throw new PreconditionError(
        `after the logout with ${request.what}, the prompt=none request ${describeOutcome(after)} and the same ` +
          `request without prompt ${describeOutcome(plain)}; login_required or a sign-in page was expected, so ` +
          `whether the session ended cannot be told`,
      );
    }
  },
});
