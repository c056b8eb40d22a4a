/**
 * The whole catalog's wall time with each login driver (login.driver "form", then "browser"), in this process, against
 * the embedded reference or oidc-provider: one Chromium for both runs, the same seed. The browser scenarios run in
 * both (they always use the browser); the ratio is what choosing the browser driver costs.
 */
import { loadavg } from 'node:os';
import { startEmbeddedReference } from '../cli/embedded.ts';
import { BrowserHost } from '../harness/login/chromium.ts';
import type { Report, Summary } from '../harness/model/results.ts';
import { runConformance } from '../index.ts';

/** A target config as the embedded reference and oidc-provider's test support give it. */
type Target = Awaited<ReturnType<typeof startEmbeddedReference>>['target'];

export type DriverIdp = 'reference' | 'oidc-provider';

export interface DriverRun {
  driver: 'form' | 'browser';
  wallMs: number;
  summary: Summary;
  /** The load average (1 min) when the run started and ended: other work on the machine skews the times. */
  load: { start: number; end: number };
  errors: { id: string; message: string }[];
  slowest: { id: string; durationMs: number }[];
}

export interface BrowserBench {
  idp: DriverIdp;
  form: DriverRun;
  browser: DriverRun;
  /** browser wall time / form wall time. */
  ratio: number;
}

/** The ratio the browser driver's catalog is held to (issue 14 item 6). */
export const BROWSER_RATIO_TARGET = 2;

async function timed(driver: DriverRun['driver'], target: Target, host: BrowserHost, seed: number): Promise<DriverRun> {
  const start = loadavg()[0] ?? 0;
  const started = performance.now();
  const login = driver === 'browser' ? { driver: 'browser' as const } : target.login;
  const report: Report = await runConformance({ target: { ...target, login }, browser: host, seed });
  return {
    driver,
    wallMs: performance.now() - started,
    summary: report.summary,
    load: { start, end: loadavg()[0] ?? 0 },
    errors: report.results
      .filter((r) => r.status === 'error')
      .map((r) => ({ id: r.id, message: (r.message ?? '').split('\n')[0]!.slice(0, 240) })),
    slowest: [...report.results]
      .sort((a, b) => b.durationMs - a.durationMs)
      .slice(0, 5)
      .map((r) => ({ id: r.id, durationMs: r.durationMs })),
  };
}

/** Form driver, then browser driver, against one IdP started here. */
export async function browserDriverWallTime(idp: DriverIdp = 'reference', seed = 1): Promise<BrowserBench> {
  const host = new BrowserHost();
  try {
    const both = async (target: Target): Promise<BrowserBench> => {
      const form = await timed('form', target, host, seed);
      const browser = await timed('browser', target, host, seed);
      return { idp, form, browser, ratio: browser.wallMs / form.wallMs };
    };
    if (idp === 'reference') {
      const ref = await startEmbeddedReference();
      try {
        return await both(ref.target);
      } finally {
        await ref.server.close();
      }
    }
    // oidc-provider's test support is loaded only for this IdP (a dev dependency).
    const { startOidcProvider } = await import('../interop/oidc-provider/provider.ts');
    const op = await startOidcProvider();
    try {
      return await both(op.target as Target);
    } finally {
      await op.close();
    }
  } finally {
    await host.close();
  }
}

/** Lines for the console: one per run, its errors and slowest scenarios. */
export function renderBrowserBench(b: BrowserBench): string {
  const lines: string[] = [];
  for (const run of [b.form, b.browser]) {
    const s = run.summary;
    lines.push(
      `${b.idp}, ${run.driver} driver: ${(run.wallMs / 1000).toFixed(1)} s — ` +
        `${s.total} scenarios, ${s.passed} passed, ` +
        `${s.failed} failed, ${s.warnings} warnings, ${s.skipped} skipped, ${s.errors} errors ` +
        `(load average ${run.load.start.toFixed(2)} → ${run.load.end.toFixed(2)})`,
    );
    for (const e of run.errors) lines.push(`  error ${e.id}: ${e.message}`);
    lines.push(`  slowest: ${run.slowest.map((r) => `${r.id} ${(r.durationMs / 1000).toFixed(1)} s`).join(', ')}`);
  }
  lines.push(`${b.idp}: browser / form = ${b.ratio.toFixed(2)}× (target ≤ ${BROWSER_RATIO_TARGET}×)`);
  return lines.join('\n');
}
