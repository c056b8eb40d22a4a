/**
 * The SPEC's first/third-party table: a third-party client gets a consent screen. Checked on one
 * authorization request as the third-party client, through whichever login driver the caller
 * chooses (ctx.authorize over HTTP, or ctx.browser.authorize in Chromium).
 */
import {
  CheckFailure,
  PreconditionError,
  type RequirementRef,
  type ScenarioContext,
  describeOutcome,
} from '../../harness/scenario/scenario.ts';
import { partyClient } from './clients.ts';

/**
 * Runs a code-flow authorization request as the configured third-party client and fails when it
 * redirects with a code without a consent page on the way. A consent remembered from an earlier
 * request is allowed (OIDC Core §3.1.2.4), so without a consent page the request is repeated with
 * prompt=consent (OIDC Core §3.1.2.1) before judging. Skips when no client is marked third-party.
 */
export async function expectThirdPartyConsent(
  ctx: ScenarioContext,
  authorize: ScenarioContext['authorize'],
  per: RequirementRef,
  how = '',
): Promise<void> {
  const third = partyClient(ctx, false);
  if (!third) return ctx.skip('needs a code-flow client marked "firstParty": false (with a redirectUri)');
  const attempt = async (params: Record<string, string>) => {
    const pkce = ctx.pkce.create();
    const auth = await authorize(third.role, {
      code_challenge: pkce.challenge,
      code_challenge_method: pkce.method,
      ...params,
    });
    if (auth.kind !== 'redirect' || !auth.params.code) {
      throw new PreconditionError(
        `the authorization request as the ${third.role} client ${describeOutcome(auth)}; a completed flow was ` +
          `needed to see its pages`,
      );
    }
    return auth;
  };
  const first = await attempt({});
  if (first.pages.includes('consent')) return;
  const again = await attempt({ prompt: 'consent' });
  if (again.pages.includes('consent')) {
    ctx.evidence.note(
      `The first request showed no consent page (a remembered consent, which OIDC Core §3.1.2.4 allows); with ` +
        `prompt=consent the consent page came.`,
    );
    return;
  }
  const passed = again.pages.length ? `the ${again.pages.join(' and ')} page` : 'no page at all';
  throw new CheckFailure(
    `The authorization request as the third-party ${third.role} client${how} redirected with a code ` +
      `after ${passed}, without a consent page, even with prompt=consent; ${per.label} requires a consent screen ` +
      `for third-party clients.`,
    { requirement: per, kind: 'accepted' },
  );
}
