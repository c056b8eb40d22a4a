import { describe, expect, it } from 'vitest';
import { type AlgThroughput, type BenchResults, evaluateTargets, renderTable } from '../../bench/report.ts';
import { renderLatency } from '../../bench/latency.ts';
import type { MemorySample } from '../../bench/protocol.ts';

const raw = (perSecond: number) => ({
  signatures: perSecond * 3,
  durationMs: 3000,
  perSecond,
  cpuPerSignatureUs: 2e6 / perSecond,
  threadPoolSize: 4,
});
const throughput = (alg: AlgThroughput['alg'], http: number, limit: number): AlgThroughput => ({
  alg,
  raw: { before: raw(limit), after: raw(limit), limit },
  http: {
    requests: http * 5,
    durationS: 5,
    perSecond: http,
    latencyMs: { p50: 4, p99: 12 },
    cores: { server: 1.6, loadGenerator: 0.2 },
    cpuPerRequestUs: { server: 600, serverMainThread: 90, loadGenerator: 60 },
  },
  ratio: http / limit,
  cpuRatio: 2e6 / limit / 660,
});
const sample = (rss: number, heapUsed: number, storeSize: number): MemorySample => ({
  rss: rss * 2 ** 20,
  heapUsed: heapUsed * 2 ** 20,
  heapTotal: 0,
  external: 0,
  arrayBuffers: 0,
  storeSize,
});

function results(over: Partial<BenchResults> = {}): Omit<BenchResults, 'targets'> {
  return {
    schemaVersion: 1,
    startedAt: '2026-01-01T00:00:00.000Z',
    durationS: 100,
    machine: {
      cpus: 2,
      cpuModel: 'Test CPU',
      totalMemoryGiB: 8,
      node: 'v20.0.0',
      platform: 'linux x64',
      threadPoolSize: 4,
      loadAverage: { start: 0.1, end: 1.5 },
    },
    settings: {
      durationS: 5,
      rawDurationS: 3,
      warmupS: 1,
      connections: 100,
      inflight: 64,
      tokens: 100_000,
      propertyRuns: 200,
      catalogRepeat: 2,
    },
    throughput: [throughput('RS256', 3_000, 4_000), throughput('EdDSA', 9_000, 30_000)],
    catalog: [
      {
        wallMs: 20_000,
        exitCode: 0,
        summary: { total: 60, passed: 60, failed: 0, warnings: 0, skipped: 0, errors: 0, expectedFailures: 0 },
      },
      {
        wallMs: 9_000,
        exitCode: 0,
        runMs: 7_000,
        summary: { total: 60, passed: 60, failed: 0, warnings: 0, skipped: 0, errors: 0, expectedFailures: 0 },
      },
    ],
    memory: {
      alg: 'EdDSA',
      tokens: 100_000,
      baseline: sample(120, 12, 0),
      afterIssue: sample(160, 52, 100_000),
      afterExpiry: sample(121, 12, 0),
      heapPerToken: 420,
      retained: { rss: 2 ** 20, heapUsed: 0 },
      flat: true,
      issueSeconds: 12,
    },
    ...over,
  };
}

describe('bench report', () => {
  it('judges the three targets: RS256 ratio, the last catalog run, flat memory', () => {
    const targets = evaluateTargets(results());
    expect(targets.map((t) => [t.name, t.met])).toEqual([
      ['RS256 token endpoint throughput vs. raw RS256 signing (same run)', true],
      ['non-browser catalog wall time (60 scenarios)', true],
      ['memory once 100,000 tokens have expired', true],
    ]);
    expect(targets[0]!.measured).toBe('75 % (3,000 / 4,000 per s; in CPU time 76 %)');
  });

  it('misses a target below 60 %, above 15 s, or when a catalog scenario failed', () => {
    const slow = evaluateTargets(results({ throughput: [throughput('RS256', 2_000, 4_000)] }));
    expect(slow[0]).toMatchObject({ met: false, measured: '50 % (2,000 / 4,000 per s; in CPU time 76 %)' });
    const failing = evaluateTargets(results({ catalog: [{ wallMs: 5_000, exitCode: 1 }] }));
    expect(failing[1]).toMatchObject({ met: false, measured: '5.0 s (exit 1: a scenario failed)' });
  });

  it('prints a row per measurement and a line per target', () => {
    const all = results();
    const table = renderTable({ ...all, targets: evaluateTargets(all) });
    expect(table).toContain('2 × Test CPU');
    expect(table).not.toContain('reference compiled');
    const built = { ...all, machine: { ...all.machine, reference: 'build' as const } };
    expect(renderTable({ ...built, targets: evaluateTargets(built) })).toContain(
      'UV_THREADPOOL_SIZE 4, reference compiled by tsc, load average',
    );
    expect(table).toMatch(/token endpoint, client_credentials, RS256 +3,000 tokens\/s/);
    expect(table).toMatch(/raw RS256 signing, thread pool +4,000 signatures\/s .*ratio 75 %/);
    expect(table).toMatch(
      new RegExp(
        /CPU per token vs\. per raw signature +660 \/ 500 µs +server 600 /.source +
          /\(event loop 90\) \+ autocannon 60; CPU ratio 76 %/.source,
      ),
    );
    expect(table).toMatch(/non-browser catalog, embedded reference \(cold\) +20\.0 s/);
    expect(table).toMatch(/after issuing 100,000 tokens +RSS 160\.0 MiB/);
    expect(table).toContain('MET      memory once 100,000 tokens have expired');
  });
});

describe('the browser driver bench', () => {
  const summary = { total: 100, passed: 95, failed: 0, warnings: 0, skipped: 5, errors: 0, expectedFailures: 0 };
  const run = (driver: 'form' | 'browser', wallMs: number, errors = 0) => ({
    driver,
    wallMs,
    summary: { ...summary, errors },
    load: { start: 0.5, end: 1.2 },
    errors: [],
    slowest: [],
  });
  it('is met at most twice the form driver, and not met above it or with more errors than the form run', () => {
    const met = evaluateTargets(
      results({
        browser: { idp: 'reference', form: run('form', 8_000), browser: run('browser', 15_000), ratio: 1.875 },
      }),
    ).find((t) => t.name.includes('browser login driver'));
    expect(met).toMatchObject({ met: true, target: '≤ 2×', measured: '1.88× (15.0 s / 8.0 s)' });
    const slow = { idp: 'reference' as const, form: run('form', 8_000), browser: run('browser', 24_000), ratio: 3 };
    expect(evaluateTargets(results({ browser: slow })).find((t) => t.name.includes('browser login driver'))?.met).toBe(
      false,
    );
    const erring = {
      idp: 'reference' as const,
      form: run('form', 8_000),
      browser: run('browser', 9_000, 3),
      ratio: 1.1,
    };
    expect(
      evaluateTargets(results({ browser: erring })).find((t) => t.name.includes('browser login driver'))?.met,
    ).toBe(false);
  });

  it('prints a row per driver with the load average', () => {
    const browser = {
      idp: 'reference' as const,
      form: run('form', 8_000),
      browser: run('browser', 15_000),
      ratio: 1.875,
    };
    const full = { ...results({ browser }), targets: evaluateTargets(results({ browser })) } as BenchResults;
    const table = renderTable(full);
    expect(table).toMatch(/whole catalog, reference, login\.driver form +8\.0 s/);
    expect(table).toMatch(/whole catalog, reference, login\.driver browser +15\.0 s .*load average 0\.50 → 1\.20/);
    expect(table).toMatch(/MET +whole catalog with the browser login driver vs\. the form driver \(reference\)/);
  });
});

describe('the latency section', () => {
  const run = (delayMs: number, wallMs: number, differing: string[] = []) => ({
    delayMs,
    users: 8,
    concurrency: 8,
    wallMs,
    exitCode: 0,
    requests: 1000,
    summary: { total: 2, passed: 2, failed: 0, warnings: 0, skipped: 0, errors: 0, expectedFailures: 0 },
    slowest: [{ id: 'redirect.exact-match', durationMs: 24_900 }],
    differing,
  });

  it("is met at 250 ms within 60 s with the first run's verdicts, and not met otherwise", () => {
    const target = (latency: ReturnType<typeof run>[]) =>
      evaluateTargets(results({ latency })).find((t) => t.name.includes('250 ms'));
    expect(target([run(0, 13_000), run(250, 48_700)])).toMatchObject({ met: true });
    expect(target([run(0, 13_000), run(250, 61_000)])).toMatchObject({ met: false });
    expect(target([run(0, 13_000), run(250, 40_000, ['x.y: passed → error'])])).toMatchObject({
      met: false,
      measured: '40.0 s, 1 verdicts differ',
    });
    expect(target([run(0, 13_000)])).toBeUndefined();
  });

  it('renders a row per delay with the longest scenario and what differs', () => {
    const table = renderLatency([run(0, 13_000), run(250, 40_000, ['x.y: passed → error'])]);
    expect(table).toContain(
      '| 0 ms | 8, 8 | 13.0 s | 1000 | 2 (2) | redirect.exact-match 24.9 s | same as the first |',
    );
    expect(table).toContain('1 differ: x.y: passed → error');
  });
});
