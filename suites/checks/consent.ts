/**
 * The SPEC's first/third-party table: a third-party client gets a consent screen. Checked on one
 * authorization request as the third-party client, through whichever login driver the caller
 * chooses (ctx.authorize over HTTP, or ctx.browser.authorize in Chromium).
 */
import { CheckFailure, PreconditionError, type ScenarioContext, describeOutcome } from '../../harness/scenario.ts';
import { partyClient } from './clients.ts';

export const CONSENT_RULE = 'SPEC › First-party versus third-party';

/**
 * Runs a code-flow authorization request as the configured third-party client (no prompt
 * parameter: whether to ask is left to the server) and fails when it redirects with a code
 * without a consent page on the way. Skips when no client is marked third-party.
 */
export async function expectThirdPartyConsent(ctx: ScenarioContext, authorize: ScenarioContext['authorize'], how = ''): Promise<void> {
  const third = partyClient(ctx, false);
  if (!third) return ctx.skip('needs a code-flow client marked "firstParty": false (with a redirectUri)');
  const pkce = ctx.pkce.create();
  const auth = await authorize(third.role, { code_challenge: pkce.challenge, code_challenge_method: pkce.method });
  if (auth.kind !== 'redirect' || !auth.params.code) {
    throw new PreconditionError(`the authorization request as the ${third.role} client ${describeOutcome(auth)}; a completed flow was needed to see its pages`);
  }
  if (!auth.pages.includes('consent')) {
    const passed = auth.pages.length ? `the ${auth.pages.join(' and ')} page` : 'no page at all';
    throw new CheckFailure(`The authorization request as the third-party ${third.role} client${how} redirected with a code after ${passed}, without a consent page; ${CONSENT_RULE} requires a consent screen for third-party clients.`, { requirement: CONSENT_RULE });
  }
}
