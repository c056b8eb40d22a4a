/**
 * The whole catalog's wall time with each login driver, against the embedded reference and
 * against oidc-provider (the interop IdP the tests use): `npx tsx bench/drivers.ts [reference|oidc-provider]`.
 * One Chromium for all runs; the same seed for each. Prints one line per run with the summary.
 */
import { startEmbeddedReference } from '../cli/embedded.ts';
import { BrowserHost } from '../harness/login/chromium.ts';
import type { Report } from '../harness/results.ts';
import { runConformance } from '../index.ts';
import { startOidcProvider } from '../test/support/oidc-provider.ts';

type Target = Parameters<typeof runConformance>[0]['target'] & object;

const host = new BrowserHost();

async function timed(label: string, target: Target): Promise<void> {
  const started = performance.now();
  const report: Report = await runConformance({ target, browser: host, seed: 1 });
  const s = report.summary;
  const errors = report.results
    .filter((r) => r.status === 'error')
    .map((r) => `${r.id}: ${r.message ?? ''}`.slice(0, 240));
  console.log(`${label}: ${((performance.now() - started) / 1000).toFixed(1)} s — ${JSON.stringify(s)}`);
  for (const e of errors) console.log(`  error ${e}`);
  const slowest = [...report.results]
    .sort((a, b) => b.durationMs - a.durationMs)
    .slice(0, 5)
    .map((r) => `${r.id} ${(r.durationMs / 1000).toFixed(1)} s`);
  console.log(`  slowest: ${slowest.join(', ')}`);
}

const which = process.argv[2] ?? 'reference';
try {
  if (which === 'reference') {
    const ref = await startEmbeddedReference();
    try {
      await timed('reference, form driver', ref.target as Target);
      await timed('reference, browser driver', { ...(ref.target as Target), login: { driver: 'browser' } } as Target);
    } finally {
      await ref.server.close();
    }
  } else {
    const op = await startOidcProvider();
    try {
      await timed('oidc-provider, form driver', op.target as Target);
      await timed('oidc-provider, browser driver', {
        ...(op.target as Target),
        login: { driver: 'browser' },
      } as Target);
    } finally {
      await op.close();
    }
  }
} finally {
  await host.close();
}
