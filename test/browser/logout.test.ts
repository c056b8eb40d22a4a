/**
 * The logout scenarios under the browser login driver: logout.front-channel reads the frame the logged-out page
 * loads from the requests Chromium made (blocked off the IdP's origin), logout.back-channel takes its token as over
 * HTTP; the RP-initiated ones answer the logout confirmation page in Chromium. Against the embedded reference, clean
 * and with the front-channel flaw. One Chromium for the file.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedReference } from '../../cli/embedded.ts';
import { BrowserHost } from '../../harness/login/chromium.ts';
import type { ScenarioResult } from '../../harness/model/results.ts';
import { runConformance } from '../../index.ts';
import type { FlawName } from '../../reference/index.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';

const host = new BrowserHost();
afterAll(() => host.close());

const IDS = [
  'logout.back-channel',
  'logout.front-channel',
  'logout.id-token-hint-checked',
  'logout.without-parameters',
];
const LOGOUT = BUILT_IN_SCENARIOS.filter((s) => IDS.includes(s.id));
const show = (r: ScenarioResult) => `${r.id}: ${r.status}${r.message ? ` — ${r.message}` : ''}`;

async function run(flaws: FlawName[]): Promise<ScenarioResult[]> {
  const ref = await startEmbeddedReference({ flaws });
  try {
    const report = await runConformance({
      target: { ...ref.target, login: { driver: 'browser' } },
      scenarios: LOGOUT,
      browser: host,
      seed: 7,
    });
    return [...report.results].sort((a, b) => a.id.localeCompare(b.id));
  } finally {
    await ref.server.close();
  }
}

describe('logout scenarios with the browser login driver', () => {
  it('pass against the clean reference', async () => {
    expect(LOGOUT).toHaveLength(IDS.length);
    const results = await run([]);
    // logout.without-parameters answers the reference's confirmation page in Chromium and never signs in again.
    expect(results.map(show)).toEqual(IDS.map((id) => `${id}: passed`));
  }, 240_000); // eight sign-ins and logouts in Chromium: generous on a loaded machine

  it('front-channel-no-sid fails logout.front-channel in Chromium too', async () => {
    const results = await run(['front-channel-no-sid']);
    const front = results.find((r) => r.id === 'logout.front-channel')!;
    expect(front.status, show(front)).toBe('failed');
    expect(front.message).toMatch(/it has no sid/);
    expect(results.find((r) => r.id === 'logout.back-channel')!.status).toBe('passed');
  }, 240_000); // as above
});
