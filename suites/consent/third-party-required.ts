import { CheckFailure, PreconditionError, defineScenario, describeOutcome } from '../../harness/scenario.ts';
import { partyClient } from '../checks/index.ts';

const RULE = 'SPEC › First-party versus third-party';

export default defineScenario({
  id: 'consent.third-party-required',
  title: 'A third-party client gets a consent page before the code (first-party clients may skip it)',
  requirements: [{ spec: 'SPEC', section: 'First-party versus third-party', level: 'MUST', note: 'consent screen: required for third-party' }],
  severity: 'high',
  requires: { user: true, capabilities: ['grant:authorization_code', 'endpoint:authorization'] },
  catches: ['consent-skipped'],
  async run(ctx) {
    const third = partyClient(ctx, false);
    if (!third) return ctx.skip('needs a code-flow client marked "firstParty": false (with a redirectUri)');
    const pkce = ctx.pkce.create();
    // No prompt parameter: whether to ask is left to the server.
    const auth = await ctx.authorize(third.role, { code_challenge: pkce.challenge, code_challenge_method: pkce.method });
    if (auth.kind !== 'redirect' || !auth.params.code) {
      throw new PreconditionError(`the authorization request as the ${third.role} client ${describeOutcome(auth)}; a completed flow was needed to see its pages`);
    }
    if (!auth.pages.includes('consent')) {
      const passed = auth.pages.length ? `the ${auth.pages.join(' and ')} page` : 'no page at all';
      throw new CheckFailure(`The authorization request as the third-party ${third.role} client redirected with a code after ${passed}, without a consent page; ${RULE} requires a consent screen for third-party clients.`, { requirement: RULE });
    }
  },
});
