import { CheckFailure, defineScenario, describeOutcome } from '../../harness/scenario/scenario.ts';
import {
  CODE_FLOW_CAPABILITIES,
  NO_INTERACTION_ERRORS,
  authorizeInSession,
  expectControl,
  expectSilentCode,
  signIn,
} from '../checks/index.ts';

export default defineScenario({
  id: 'prompt.none-no-session',
  title: 'prompt=none without a session is answered with login_required at the redirect URI, never with a page',
  requirements: {
    oidcCore_3_1_2_1: {
      spec: 'OIDC Core',
      section: '3.1.2.1',
      level: 'MUST',
      party: 'server',
      note: 'prompt=none: no user interface; an error if not signed in',
    },
    oidcCore_3_1_2_6: {
      spec: 'OIDC Core',
      section: '3.1.2.6',
      level: 'MUST',
      party: 'server',
      note: 'login_required, interaction_required or consent_required',
    },
  },
  severity: 'medium',
  appliesTo: 'oidc',
  requires: { roles: ['confidential'], user: true, capabilities: CODE_FLOW_CAPABILITIES },
  catches: ['prompt-none-shows-page', 'state-dropped'],
  async run(ctx) {
    // A new login session: no cookies, so nobody is signed in. The driver acts on no page.
    const { outcome } = await authorizeInSession(
      ctx,
      'confidential',
      ctx.loginSession('no session'),
      { prompt: 'none' },
      { interact: false },
    );
    const when = 'The prompt=none request without a session';
    if (outcome.kind !== 'redirect') {
      throw new CheckFailure(
        `${when} ${describeOutcome(outcome)}; OIDC Core §3.1.2.1 forbids any authentication or consent user ` +
          `interface for prompt=none and requires an error (login_required) at the redirect_uri.`,
        { requirement: ctx.req.oidcCore_3_1_2_1, kind: 'refused-wrongly' },
      );
    }
    const { error, code, state } = outcome.params;
    if (code !== undefined || error === undefined || !NO_INTERACTION_ERRORS.includes(error)) {
      const got = code !== undefined ? 'a code' : error === undefined ? 'no error' : `error=${error}`;
      throw new CheckFailure(
        `${when} redirected with ${got}; OIDC Core §3.1.2.6 requires ${NO_INTERACTION_ERRORS.slice(0, 3)
          .map((e) => `error=${e}`)
          .join(', ')} (or another error of §3.1.2.6).`,
        { requirement: ctx.req.oidcCore_3_1_2_6, kind: code !== undefined ? 'accepted' : 'refused-wrongly' },
      );
    }
    if (state !== outcome.request.state) {
      throw new CheckFailure(
        `${when} redirected with error=${error} but ` +
          `state ${state === undefined ? '(none)' : JSON.stringify(state)}; OIDC Core §3.1.2.6 (RFC 6749 §4.1.2.1) ` +
          `requires the exact state sent.`,
        { requirement: ctx.req.oidcCore_3_1_2_6, kind: 'refused-wrongly' },
      );
    }
    // The control: error=login_required shows the missing session only if, signed in, the same request gets a code.
    await expectControl(
      `${when} got error=${error}`,
      'the same prompt=none request in a signed-in session',
      async () => {
        const first = await signIn(ctx, 'confidential');
        const again = await authorizeInSession(
          ctx,
          'confidential',
          first.session,
          { prompt: 'none' },
          { interact: false },
        );
        expectSilentCode(again.outcome, {
          when: 'The prompt=none request in a signed-in session',
          per: ctx.req.oidcCore_3_1_2_1,
        });
      },
    );
  },
});
