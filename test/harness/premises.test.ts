/**
 * No premise, no verdict (docs/catalog.md, "Missing premises"): a scenario whose premise the IdP does not offer is
 * `skipped` with that reason, never `error`; a set-up that fails before the premise can be seen stays an `error`.
 * Played by the stub IdP.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { validateConfig } from '../../harness/config/load.ts';
import { runSuite } from '../../harness/run/conformance.ts';
import type { ScenarioResult } from '../../harness/model/results.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';
import { type StubIdp, type StubOptions, startStubIdp } from '../support/stub-idp.ts';
import { planRun } from '../../harness/run/plan.ts';

let stub: StubIdp | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

async function result(id: string, options: StubOptions): Promise<ScenarioResult> {
  stub = await startStubIdp(options);
  const scenarios = BUILT_IN_SCENARIOS.filter((s) => s.id === id);
  const report = await runSuite(planRun({ config: validateConfig(stub.config, {}), scenarios, seed: 26 }));
  return report.results[0]!;
}

describe('a missing premise is a skip with the reason', () => {
  it('redirect.no-307-after-login: a sign-in posting no form (signed in, by script) is skipped', async () => {
    const r = await result('redirect.no-307-after-login', { signedIn: true });
    expect(r.status).toBe('skipped');
    expect(r.skipReason).toMatch(/with a code without a form POST of the credentials answered by a redirect/);
  });

  it('redirect.no-307-after-login: a refused authorization is still an error (it never got to a sign-in)', async () => {
    const r = await result('redirect.no-307-after-login', { refuseAuthorize: 'access_denied' });
    expect(r.status).toBe('error');
    expect(r.message).toMatch(/redirected with error=access_denied; a completed sign-in was needed/);
  });

  it('redirect.no-307-after-login: a redirect that answers a POST without credentials is not judged', async () => {
    // The stub answers its sign-in POST with the consent page (200); only the consent POST, which carries no
    // password, is answered by a redirect: RFC 9700 §4.12 is about requests that carry credentials.
    const r = await result('redirect.no-307-after-login', {});
    expect(r.status).toBe('skipped');
    expect(r.evidence.some((e) => e.kind === 'note' && e.label === 'POSTs without credentials, not judged')).toBe(true);
  });

  it('form-post.response: a discovery without form_post in response_modes_supported is skipped', async () => {
    const r = await result('form-post.response', {});
    expect(r.status).toBe('skipped');
    expect(r.skipReason).toMatch(/response_modes_supported .*form_post/);
  });

  it('jarm.signed-response: a discovery without jwt in response_modes_supported is skipped', async () => {
    const r = await result('jarm.signed-response', {});
    expect(r.status).toBe('skipped');
    expect(r.skipReason).toMatch(/response_modes_supported|JARM/);
  });

  it('race.refresh-rotation: an IdP that issues no refresh token leaves nothing to race with', async () => {
    const r = await result('race.refresh-rotation', { noRefreshToken: true });
    expect(r.status).toBe('skipped');
    expect(r.skipReason).toMatch(/returned no refresh_token to race with/);
  });
});

describe('the harness asks only for what the client has (offline_access only where advertised)', () => {
  it('race.refresh-rotation: an IdP that does not know offline_access is raced with its own scope', async () => {
    const r = await result('race.refresh-rotation', { unknownScopes: ['offline_access'] });
    expect(r.status).not.toBe('error');
    expect(r.status).toBe('passed');
  });

  it('race.refresh-rotation: offline_access is asked for where scopes_supported lists it', async () => {
    const r = await result('race.refresh-rotation', {
      unknownScopes: ['offline_access'],
      discoveryExtra: { scopes_supported: ['openid', 'profile', 'offline_access'] },
    });
    // The stub advertises what it then refuses: the refusal of the sound request is a set-up error, not a verdict.
    expect(r.status).toBe('error');
    expect(r.message).toMatch(/invalid_scope/);
  });
});
