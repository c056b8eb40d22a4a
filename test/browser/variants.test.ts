/**
 * The browser catalog under the page variants (issue 39): the browser scenarios give the same status against the
 * reference with spa-login (a login form rendered by script) and with locale-de (every page in German) as against the
 * plain reference, and each planted flaw a browser scenario claims still fails it under either variant.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedReference } from '../../cli/embedded.ts';
import { BrowserHost } from '../../harness/login/chromium.ts';
import type { Report } from '../../harness/model/results.ts';
import type { Scenario } from '../../harness/scenario/scenario.ts';
import { runConformance } from '../../index.ts';
import type { FlawName, VariantName } from '../../reference/index.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';

const BROWSER = BUILT_IN_SCENARIOS.filter((s) => s.area === 'browser');
const VARIANTS: VariantName[] = ['spa-login', 'locale-de'];

const host = new BrowserHost();
afterAll(() => host.close());

async function run(variants: VariantName[], scenarios: readonly Scenario[], flaws: FlawName[] = []): Promise<Report> {
  const ref = await startEmbeddedReference({ variants, flaws });
  try {
    return await runConformance({ target: ref.target, scenarios, browser: host, seed: 7 });
  } finally {
    await ref.server.close();
  }
}

const statuses = (report: Report): Record<string, string> =>
  Object.fromEntries(
    report.results.map((r) => [r.id, `${r.status}${r.status === 'passed' ? '' : ` — ${r.message ?? r.skipReason}`}`]),
  );

it('has Chromium to run them with (npm test installs it first, or says how)', () => {
  expect(host.unavailable, host.unavailable).toBeUndefined();
});

describe('the browser scenarios under the page variants', () => {
  it('give every scenario the status it has against the plain reference', { timeout: 600_000 }, async () => {
    const plain = statuses(await run([], BROWSER));
    // Every one of them passes on the plain reference (test/browser/scenarios.test.ts): the same statuses are passes.
    expect(Object.entries(plain).filter(([, status]) => status !== 'passed')).toEqual([]);
    expect(Object.keys(plain).sort()).toEqual(BROWSER.map((s) => s.id).sort());
    for (const variant of VARIANTS) expect(statuses(await run([variant], BROWSER)), variant).toEqual(plain);
  });

  it('still fail with each flaw they claim, under either variant', { timeout: 600_000 }, async () => {
    for (const variant of VARIANTS) {
      for (const scenario of BROWSER) {
        for (const flaw of scenario.catches ?? []) {
          const report = await run([variant], [scenario], [flaw]);
          expect(report.results.map((r) => `${variant} × ${flaw}: ${r.status}`)).toEqual([
            `${variant} × ${flaw}: failed`,
          ]);
        }
      }
    }
  });
});
