/**
 * The browser login driver over a representative part of the catalog, against the reference: the same statuses as
 * the auto driver of the reference's target config (over HTTP; a form_post page in Chromium); the scenarios that
 * need a fresh sign-in (prompt=login, max_age, consent, deny) still get one, so the flaws they claim still fail
 * them; and the walks that share the run's IdP session share one browser context (its cookies carry the sign-in)
 * instead of a context each. No timing is asserted: `npm run bench -- --only browser` measures the time.
 */
import type { BrowserContext } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedReference } from '../../cli/embedded.ts';
import { BrowserHost } from '../../harness/login/chromium.ts';
import type { BrowserState } from '../../harness/login/session.ts';
import type { Report } from '../../harness/model/results.ts';
import { runConformance } from '../../index.ts';
import type { FlawName } from '../../reference/index.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';

/** Counts the contexts the run asks for (the walks that do not share the run's context each ask for one). */
class CountingHost extends BrowserHost {
  asked = 0;
  override newContext(state?: BrowserState): Promise<BrowserContext> {
    this.asked++;
    return super.newContext(state);
  }
}

const host = new CountingHost();
afterAll(() => host.close());

/** Shared sign-ins (flows.code), fresh ones (ctx.authorize, prompt, max_age, deny, consent), devices, error pages. */
const IDS = [
  'code.happy-path',
  'code.state-round-trip',
  'code.single-use',
  'code.bound-to-client',
  'refresh.rotation',
  'refresh.reuse-rejected',
  'tokens.third-party-short-lived',
  'id-token.scope-claims',
  'prompt.login',
  'prompt.none-with-session',
  'prompt.none-no-session',
  'max-age.reauthenticates',
  'consent.third-party-required',
  'authorize.user-denies',
  'redirect.exact-match',
  'device.approved',
  'device.denied',
  'logout.rp-initiated',
  'authorize.post',
  'redirect.no-307-after-login',
  'form-post.response',
];
const SCENARIOS = IDS.map((id) => {
  const s = BUILT_IN_SCENARIOS.find((x) => x.id === id);
  if (!s) throw new Error(`no scenario ${id}`);
  return s;
});

/** At least one page per scenario: each of them walks at least once. */
const IDS_SHARED_MIN = 4;

async function run(driver: 'auto' | 'browser' | 'form', flaws: FlawName[] = [], ids = IDS): Promise<Report> {
  const ref = await startEmbeddedReference({ flaws });
  try {
    return await runConformance({
      target: {
        ...ref.target,
        login: driver === 'browser' ? { driver } : driver === 'form' ? { driver } : ref.target.login,
      },
      scenarios: SCENARIOS.filter((s) => ids.includes(s.id)),
      browser: host,
      seed: 11,
    });
  } finally {
    await ref.server.close();
  }
}

const statuses = (report: Report): Record<string, string> =>
  Object.fromEntries(report.results.map((r) => [r.id, `${r.status}${r.status === 'error' ? `: ${r.message}` : ''}`]));

describe('the browser login driver over part of the catalog, against the reference', () => {
  it('gives every scenario the status the auto driver gives it, none an error', { timeout: 600_000 }, async () => {
    const form = statuses(await run('auto'));
    const browser = statuses(await run('browser'));
    expect(browser).toEqual(form);
    expect(Object.values(form).filter((s) => !['passed', 'skipped'].includes(s))).toEqual([]);
    expect(Object.values(form).filter((s) => s === 'passed').length).toBeGreaterThan(IDS.length / 2);
  });

  it('still signs in afresh where a scenario needs it: the flaws of prompt=login, max_age and consent fail them', {
    timeout: 600_000,
  }, async () => {
    const ids = ['prompt.login', 'max-age.reauthenticates', 'consent.third-party-required'];
    const report = await run('browser', ['prompt-login-ignored', 'max-age-ignored', 'consent-skipped'], ids);
    expect(statuses(report)).toEqual({
      'prompt.login': 'failed',
      'max-age.reauthenticates': 'failed',
      'consent.third-party-required': 'failed',
    });
  });

  it('sends the authorization request as a form POST: a server that takes only GET fails authorize.post', {
    timeout: 600_000,
  }, async () => {
    const report = await run('browser', ['authorize-get-only'], ['authorize.post']);
    expect(statuses(report)).toEqual({ 'authorize.post': 'failed' });
  });

  it('reports the redirects of a walk: a login POST answered 307 fails redirect.no-307-after-login', {
    timeout: 600_000,
  }, async () => {
    const clean = await run('browser', [], ['redirect.no-307-after-login']);
    expect(statuses(clean)).toEqual({ 'redirect.no-307-after-login': 'passed' });
    const report = await run('browser', ['redirect-307-after-login'], ['redirect.no-307-after-login']);
    expect(statuses(report)).toEqual({ 'redirect.no-307-after-login': 'failed' });
  });

  it('reads a form_post response as the POST it is: parameters in the action URL fail form-post.response', {
    timeout: 600_000,
  }, async () => {
    const report = await run('browser', ['form-post-in-query'], ['form-post.response']);
    expect(statuses(report)).toEqual({ 'form-post.response': 'failed' });
    expect(report.results[0]?.message).toMatch(/a form POSTed to the registered redirect URI .* in its URL/);
  });

  it('passes form-post.response only when the page submits its form itself (flaw form-post-not-submitting)', {
    timeout: 600_000,
  }, async () => {
    for (const driver of ['auto', 'browser'] as const) {
      expect(statuses(await run(driver, [], ['form-post.response'])), driver).toEqual({
        'form-post.response': 'passed',
      });
      const report = await run(driver, ['form-post-not-submitting'], ['form-post.response']);
      expect(statuses(report), driver).toEqual({ 'form-post.response': 'failed' });
      expect(report.results[0]?.message).toMatch(/never submitted: the browser watched it for \d+ ms/);
    }
    // The form driver runs no script: it cannot tell, and says so (an error, never a pass).
    const form = await run('form', [], ['form-post.response']);
    expect(form.results.map((r) => r.status)).toEqual(['error']);
    expect(form.results[0]?.message).toMatch(/whether the page submits it by itself is unseen/);
  });

  it('walks on the shared session share one context: code flows after the first sign in without one each', {
    timeout: 600_000,
  }, async () => {
    // Each of these gets its codes through flows.code ("shared"); id-token.scope-claims one per scope set.
    const ids = ['code.single-use', 'code.state-round-trip', 'code.bound-to-client', 'id-token.scope-claims'];
    host.asked = 0;
    const report = await run('browser', [], ids);
    expect(statuses(report)).toEqual(Object.fromEntries(ids.map((id) => [id, 'passed'])));
    const walks = report.results.flatMap((r) =>
      r.evidence.filter((e) => e.kind === 'http' && /^browser: /.test(e.label ?? '')),
    );
    expect(walks.length).toBeGreaterThanOrEqual(IDS_SHARED_MIN); // many pages were walked...
    // ...in one context, the run's shared session's, however many walks it carried.
    expect(host.asked).toBe(1);
  });
});
