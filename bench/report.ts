/** The results of one `npm run bench`: their JSON shape, the targets, and the printed table. */
import type { RedisResults } from './redis.ts';
import type { SigningAlg } from '../reference/index.ts';
import { BROWSER_RATIO_TARGET, type BrowserBench } from './browser.ts';
import type { CatalogRun } from './catalog.ts';
import { LATENCY_TARGET_MS, type LatencyRun } from './latency.ts';
import { type DriverBench, verdict } from './drivers.ts';
import type { MemoryResult } from './memory.ts';
import type { PropertyBenchResult } from './properties.ts';
import type { RawSignResult } from './signing.ts';
import type { ThroughputResult } from './throughput.ts';
import { ratioText, VS_OIDC_PROVIDER_TARGET, type VsOidcProvider } from './vs-oidc-provider.ts';

export interface Machine {
  /** How the reference server ran: compiled by tsc (the published package) or from its sources through tsx. */
  reference?: 'build' | 'source';
  cpus: number;
  cpuModel: string;
  totalMemoryGiB: number;
  node: string;
  platform: string;
  threadPoolSize: number;
  /** 1-minute load average when the run started and when it ended: other work on the machine. */
  loadAverage: { start: number; end?: number };
}

export interface AlgThroughput {
  alg: SigningAlg;
  /** The raw signing rate just before and just after the HTTP run; `limit` is their mean. */
  raw: { before: RawSignResult; after: RawSignResult; limit: number };
  http: ThroughputResult;
  /** http.perSecond / raw.limit. */
  ratio: number;
  /**
   * The same comparison in CPU time, which other work on the machine disturbs far less than
   * rates: CPU per raw signature / CPU per issued token (server and load generator together).
   * On an otherwise idle machine the rate ratio comes out near it.
   */
  cpuRatio: number;
}

/** How the header names the way the reference server ran. */
const referenceRun = { build: 'reference compiled by tsc, ', source: 'reference through tsx, ', none: '' } as const;

export interface Settings {
  durationS: number;
  rawDurationS: number;
  warmupS: number;
  connections: number;
  inflight: number;
  tokens: number;
  propertyRuns: number;
  catalogRepeat: number;
}

export interface Target {
  name: string;
  target: string;
  measured: string;
  met: boolean;
}

export interface BenchResults {
  schemaVersion: 1;
  startedAt: string;
  durationS: number;
  machine: Machine;
  settings: Settings;
  throughput: AlgThroughput[];
  catalog?: CatalogRun[];
  properties?: PropertyBenchResult;
  memory?: MemoryResult;
  redis?: RedisResults;
  /** CPU per RS256 client_credentials token, the reference against oidc-provider (--only vs-oidc-provider). */
  vsOidcProvider?: VsOidcProvider;
  /** The whole catalog with the form and the browser login driver (npm run bench -- --only browser). */
  browser?: BrowserBench;
  /** The whole catalog with the form, auto and browser drivers, per target (npm run bench -- --only drivers). */
  drivers?: DriverBench;
  /** The non-browser catalog behind delayed responses (npm run bench -- --only latency). */
  latency?: LatencyRun[];
  targets: Target[];
}

export const THROUGHPUT_TARGET = 0.6;
export const CATALOG_TARGET_MS = 15_000;

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const percent = (x: number) => `${(x * 100).toFixed(0)} %`;

/** CPU per issued token: the server process and the load generator. */
export function cpuPerToken(t: Pick<AlgThroughput, 'http'>): number {
  return t.http.cpuPerRequestUs.server + t.http.cpuPerRequestUs.loadGenerator;
}

/** CPU per raw signature: the mean of the runs before and after. */
export function cpuPerSignature(t: Pick<AlgThroughput, 'raw'>): number {
  return (t.raw.before.cpuPerSignatureUs + t.raw.after.cpuPerSignatureUs) / 2;
}

/** The catalog run the target is judged on: the last (tsx's transform cache warm). */
export function judgedCatalogRun(runs: readonly CatalogRun[] | undefined): CatalogRun | undefined {
  return runs?.[runs.length - 1];
}

export function evaluateTargets(results: Omit<BenchResults, 'targets'>): Target[] {
  const targets: Target[] = [];
  const rs256 = results.throughput.find((t) => t.alg === 'RS256');
  if (rs256) {
    targets.push({
      name: 'RS256 token endpoint throughput vs. raw RS256 signing (same run)',
      target: `≥ ${percent(THROUGHPUT_TARGET)}`,
      measured:
        `${percent(rs256.ratio)} (${int(rs256.http.perSecond)} / ${int(rs256.raw.limit)} per s; in CPU ` +
        `time ${percent(rs256.cpuRatio)})`,
      met: rs256.ratio >= THROUGHPUT_TARGET,
    });
  }
  if (results.vsOidcProvider) {
    const vs = results.vsOidcProvider;
    targets.push({
      name: 'CPU per RS256 token, oidc-provider over the reference (same load, process groups)',
      target: `≥ ${VS_OIDC_PROVIDER_TARGET}×`,
      measured: `${ratioText(vs.ratio)}× (median of ${vs.rounds.length} alternating rounds)`,
      met: vs.met,
    });
  }
  const catalog = judgedCatalogRun(results.catalog);
  if (catalog) {
    const clean = catalog.exitCode === 0;
    targets.push({
      name: `non-browser catalog wall time (${catalog.summary?.total ?? '?'} scenarios)`,
      target: `≤ ${seconds(CATALOG_TARGET_MS)}`,
      measured: `${seconds(catalog.wallMs)}${clean ? '' : ` (exit ${String(catalog.exitCode)}: a scenario failed)`}`,
      met: clean && catalog.wallMs <= CATALOG_TARGET_MS,
    });
  }
  const distant = results.latency?.find((r) => r.delayMs === 250);
  if (distant) {
    const same = distant.differing.length === 0;
    targets.push({
      name: `non-browser catalog at 250 ms per response (${distant.users} users, concurrency ${distant.concurrency})`,
      target: `≤ ${seconds(LATENCY_TARGET_MS)}, the verdicts of the first delay's run`,
      measured: `${seconds(distant.wallMs)}, ${same ? 'same verdicts' : `${distant.differing.length} verdicts differ`}`,
      met: same && distant.wallMs <= LATENCY_TARGET_MS,
    });
  }
  if (results.memory) {
    const m = results.memory;
    targets.push({
      name: `memory once ${int(m.tokens)} tokens have expired`,
      target: 'flat (back to the baseline)',
      measured:
        `RSS ${m.retained.rss >= 0 ? '+' : ''}${mib(m.retained.rss)}, ` +
        `heap ${m.retained.heapUsed >= 0 ? '+' : ''}${mib(m.retained.heapUsed)}, ` +
        `store ${m.afterExpiry.storeSize} entries`,
      met: m.flat,
    });
  }
  if (results.browser) {
    const b = results.browser;
    const clean = b.browser.summary.errors <= b.form.summary.errors;
    targets.push({
      name: `whole catalog with the browser login driver vs. the form driver (${b.idp})`,
      target: `≤ ${BROWSER_RATIO_TARGET}×`,
      measured:
        `${b.ratio.toFixed(2)}× (${seconds(b.browser.wallMs)} / ${seconds(b.form.wallMs)})` +
        (clean ? '' : ' (the browser run had more errors)'),
      met: clean && b.ratio <= BROWSER_RATIO_TARGET,
    });
  }
  for (const t of results.drivers?.targets ?? []) {
    const v = verdict(t);
    if (!v) continue;
    targets.push({
      name: `whole catalog with the auto login driver (${t.name}, ${t.pages})`,
      target: `auto / ${v.versus} ≤ ${v.limit}×`,
      measured: `${v.ratio.toFixed(2)}× (median of ${v.ratios.length} rounds)`,
      met: v.met,
    });
  }
  return targets;
}

/** A plain-text table: one row per measurement, then the targets. */
export function renderTable(results: BenchResults): string {
  const rows: [string, string, string][] = [];
  for (const t of results.throughput) {
    rows.push([
      `token endpoint, client_credentials, ${t.alg}`,
      `${int(t.http.perSecond)} tokens/s`,
      `p50 ${t.http.latencyMs.p50} ms, p99 ${t.http.latencyMs.p99} ms; cores: ` +
        `server ${t.http.cores.server.toFixed(2)}, autocannon ${t.http.cores.loadGenerator.toFixed(2)}`,
    ]);
    rows.push([
      `  raw ${t.alg} signing, thread pool`,
      `${int(t.raw.limit)} signatures/s`,
      `before ${int(t.raw.before.perSecond)}, after ${int(t.raw.after.perSecond)}; ratio ${percent(t.ratio)}`,
    ]);
    rows.push([
      `  CPU per token vs. per raw signature`,
      `${int(cpuPerToken(t))} / ${int(cpuPerSignature(t))} µs`,
      `server ${int(t.http.cpuPerRequestUs.server)}` +
        `${
          t.http.cpuPerRequestUs.serverMainThread === undefined
            ? ''
            : ` (event loop ${int(t.http.cpuPerRequestUs.serverMainThread)})`
        } + autocannon ${int(t.http.cpuPerRequestUs.loadGenerator)}; CPU ratio ${percent(t.cpuRatio)}`,
    ]);
  }
  for (const [i, run] of (results.catalog ?? []).entries()) {
    rows.push([
      `non-browser catalog, embedded reference${i === 0 && (results.catalog?.length ?? 0) > 1 ? ' (cold)' : ''}`,
      seconds(run.wallMs),
      `${run.summary?.total ?? '?'} scenarios, ${run.summary?.passed ?? '?'} passed; ` +
        `scenarios ${run.runMs === undefined ? '?' : seconds(run.runMs)}, the rest start-up and reports`,
    ]);
  }
  if (results.properties) {
    const p = results.properties;
    rows.push([
      'property cases over loopback HTTP',
      `${int(p.perSecond)} cases/s`,
      p.properties.map((x) => `${x.id.replace('bench.', '')} ${int(x.perSecond)}/s`).join(', '),
    ]);
  }
  if (results.memory) {
    const m = results.memory;
    rows.push([
      `reference memory, warmed up (${m.alg})`,
      `RSS ${mib(m.baseline.rss)}`,
      `heap ${mib(m.baseline.heapUsed)}`,
    ]);
    rows.push([
      `  after issuing ${int(m.tokens)} tokens`,
      `RSS ${mib(m.afterIssue.rss)}`,
      `heap ${mib(m.afterIssue.heapUsed)} (${int(m.heapPerToken)} B per live token), ` +
        `store ${int(m.afterIssue.storeSize)} entries`,
    ]);
    rows.push([
      '  after their expiry',
      `RSS ${mib(m.afterExpiry.rss)}`,
      `heap ${mib(m.afterExpiry.heapUsed)}, store ${int(m.afterExpiry.storeSize)} entries`,
    ]);
  }
  for (const run of results.browser ? [results.browser.form, results.browser.browser] : []) {
    const s = run.summary;
    rows.push([
      `whole catalog, ${results.browser!.idp}, login.driver ${run.driver}`,
      seconds(run.wallMs),
      `${s.total} scenarios, ${s.passed} passed, ${s.errors} errors; ` +
        `load average ${run.load.start.toFixed(2)} → ${run.load.end.toFixed(2)}`,
    ]);
  }
  const width = (i: number) => Math.max(...rows.map((r) => r[i]!.length));
  const lines = rows.map(([a, b, c]) => `${a.padEnd(width(0))}  ${b.padStart(width(1))}  ${c}`);
  const m = results.machine;
  const head =
    `idp-conformance bench: ${m.cpus} × ${m.cpuModel}, ${m.totalMemoryGiB} GiB, ` +
    `Node ${m.node} ${m.platform}, UV_THREADPOOL_SIZE ${m.threadPoolSize}, ` +
    `${referenceRun[m.reference ?? 'none']}load ` +
    `average ${m.loadAverage.start.toFixed(2)} at ` +
    `start${m.loadAverage.end === undefined ? '' : `, ${m.loadAverage.end.toFixed(2)} at end`}`;
  const targets = results.targets.map(
    (t) => `${t.met ? 'MET    ' : 'NOT MET'}  ${t.name}: ${t.measured} (target ${t.target})`,
  );
  return [head, '', ...lines, '', ...targets].join('\n');
}
