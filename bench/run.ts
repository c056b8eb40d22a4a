/**
 * `npm run bench`: token endpoint throughput against the raw signing limit (RS256, ES256,
 * EdDSA), the non-browser catalog's wall time, property cases per second, the reference's
 * memory before and after its tokens expire, and the whole catalog with the form and the browser
 * login driver, and the whole catalog with the form, auto and browser driver against the reference and the interop
 * IdPs. Prints a table and writes bench-results.json.
 *
 *   npm run bench                      everything (70–90 s)
 *   npm run bench -- --only throughput,memory
 *   npm run bench -- --only drivers [--targets reference,lemonldap-ng] [--rounds 3]
 *   npm run bench -- --only vs-oidc-provider [--rounds 3]   CPU per RS256 token against oidc-provider's
 *   npm run bench -- --only latency [--delays 0,100,250] [--users 8] [--concurrency 8]
 *                                      the non-browser catalog with every response delayed (a distant IdP)
 *   npm run bench -- --cpu-prof prof   also a CPU profile of each measured server run
 *   npm run bench -- --quick           short runs, to check that it works (numbers not meaningful)
 */
import { writeFile } from 'node:fs/promises';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { SigningAlg } from '../reference/index.ts';
import { browserDriverWallTime } from './browser.ts';
import { LATENCY_DEFAULTS, type LatencyOptions, latencyBench, renderLatency } from './latency.ts';
import { catalogWallTime } from './catalog.ts';
import { driverBenchOptions, driversBench, renderDriverBench } from './drivers.ts';
import { memoryAfterTokens } from './memory.ts';
import { propertyRate } from './properties.ts';
import { redisFigures, renderRedis } from './redis.ts';
import {
  type AlgThroughput,
  type BenchResults,
  type Machine,
  type Settings,
  cpuPerSignature,
  cpuPerToken,
  evaluateTargets,
  renderTable,
} from './report.ts';
import { buildReferenceForBench } from './reference-build.ts';
import { ServerProcess } from './server.ts';
import { tokenThroughput } from './throughput.ts';
import { renderVsOidcProvider, vsOidcProvider } from './vs-oidc-provider.ts';

const SECTIONS = [
  'throughput',
  'vs-oidc-provider',
  'catalog',
  'properties',
  'memory',
  'redis',
  'browser',
  'drivers',
  'latency',
] as const;
type Section = (typeof SECTIONS)[number];
const ALGS: readonly SigningAlg[] = ['RS256', 'ES256', 'EdDSA'];

/** The sections that start the reference server in a process of its own (bench/server-process.ts). */
const SERVER_SECTIONS: readonly Section[] = ['throughput', 'vs-oidc-provider', 'memory', 'redis'];

const USAGE = `Usage: npm run bench -- [--only ${SECTIONS.join(',')}] [--out FILE] [--cpu-prof DIR] [--quick]
  [--duration S] [--connections N] [--tokens N] [--runs N] [--targets reference,oidc-provider,...] [--rounds N]
  [--delays MS,MS,...] [--users N] [--concurrency N]   (latency: per-response delays, test users, scenarios at once)
  [--from-source]   run the reference server from its TypeScript sources through tsx (default: compiled by tsc, as
                    the published package runs it)`;

function settingsFrom(values: Record<string, string | boolean | undefined>): Settings {
  const quick = values.quick === true;
  const number = (name: string, fallback: number) => {
    const value = values[name];
    if (typeof value !== 'string') return fallback;
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number, not "${value}"`);
    return n;
  };
  return {
    durationS: number('duration', quick ? 1 : 5),
    rawDurationS: quick ? 0.5 : 3,
    warmupS: quick ? 0 : 1,
    connections: number('connections', 100),
    inflight: 64,
    tokens: number('tokens', quick ? 2_000 : 100_000),
    propertyRuns: number('runs', quick ? 10 : 200),
    catalogRepeat: quick ? 1 : 2,
  };
}

/** --delays, --users, --concurrency for the latency section (bench/latency.ts). */
function latencyOptions(values: Record<string, string | boolean | undefined>): LatencyOptions {
  const whole = (name: string, min: number, max: number, fallback: number) => {
    const value = values[name];
    if (typeof value !== 'string') return fallback;
    const n = Number(value);
    if (!/^[0-9]+$/.test(value) || n < min || n > max)
      throw new Error(`--${name} must be a whole number from ${min} to ${max}, not "${value}"`);
    return n;
  };
  const delays = typeof values.delays === 'string' ? values.delays.split(',').map((d) => d.trim()) : undefined;
  const delaysMs = delays?.map((d) => {
    const n = Number(d);
    if (!/^[0-9]+$/.test(d) || n > 10_000) throw new Error(`--delays: "${d}" is not a whole number of ms up to 10000`);
    return n;
  });
  return {
    delaysMs: delaysMs?.length ? delaysMs : LATENCY_DEFAULTS.delaysMs,
    users: whole('users', 1, 16, LATENCY_DEFAULTS.users),
    concurrency: whole('concurrency', 1, 64, LATENCY_DEFAULTS.concurrency),
    seed: LATENCY_DEFAULTS.seed,
  };
}

function machine(): Machine {
  const cores = cpus();
  return {
    cpus: cores.length,
    cpuModel: cores[0]?.model.trim() ?? 'unknown',
    totalMemoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    threadPoolSize: Number(process.env.UV_THREADPOOL_SIZE ?? 4),
    loadAverage: { start: loadavg()[0] ?? 0 },
  };
}

async function throughputFor(alg: SigningAlg, settings: Settings, profileDir?: string): Promise<AlgThroughput> {
  const server = await ServerProcess.start({ alg });
  try {
    const raw = () => server.rawSignRate({ durationMs: settings.rawDurationS * 1000, inflight: settings.inflight });
    const before = await raw();
    if (profileDir) await server.profileStart();
    const http = await tokenThroughput(server, settings);
    if (profileDir) await server.profileStop(join(profileDir, `server-${alg}.cpuprofile`));
    const after = await raw();
    const limit = (before.perSecond + after.perSecond) / 2;
    const result = { alg, raw: { before, after, limit }, http, ratio: http.perSecond / limit };
    return { ...result, cpuRatio: cpuPerSignature(result) / cpuPerToken(result) };
  } finally {
    await server.close();
  }
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      only: { type: 'string' },
      out: { type: 'string', default: 'bench-results.json' },
      'cpu-prof': { type: 'string' },
      quick: { type: 'boolean' },
      duration: { type: 'string' },
      connections: { type: 'string' },
      tokens: { type: 'string' },
      runs: { type: 'string' },
      targets: { type: 'string' },
      rounds: { type: 'string' },
      'from-source': { type: 'boolean' },
      delays: { type: 'string' },
      users: { type: 'string' },
      concurrency: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const named = values.only
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean) ?? [...SECTIONS];
  const isSection = (name: string): name is Section => SECTIONS.some((section) => section === name);
  const unknown = named.filter((s) => !isSection(s));
  if (unknown.length)
    throw new Error(`--only: unknown section ${unknown.join(', ')}; choose from ${SECTIONS.join(', ')}`);
  const only = named.filter(isSection);
  const settings = settingsFrom(values);
  const drivers = only.includes('drivers') ? driverBenchOptions(values) : undefined;
  const profileDir = values['cpu-prof'] === undefined ? undefined : resolve(values['cpu-prof']);
  const started = performance.now();
  const results: Omit<BenchResults, 'targets'> = {
    schemaVersion: 1,
    startedAt: new Date().toISOString(),
    durationS: 0,
    machine: machine(),
    settings,
    throughput: [],
  };
  const step = (text: string) => process.stderr.write(`bench: ${text}\n`);
  if (SERVER_SECTIONS.some((s) => only.includes(s))) {
    if (values['from-source']) results.machine.reference = 'source';
    else {
      step('compiling the reference with tsc (as the published package runs it; --from-source: through tsx)');
      process.env.BENCH_REFERENCE_MODULE = buildReferenceForBench();
      results.machine.reference = 'build';
    }
  }

  if (only.includes('throughput')) {
    for (const alg of ALGS) {
      step(
        `${alg}: raw signing ${settings.rawDurationS} s, token endpoint ${settings.durationS} s ` +
          `(${settings.connections} connections), raw signing again`,
      );
      results.throughput.push(await throughputFor(alg, settings, profileDir));
    }
  }
  if (only.includes('vs-oidc-provider')) {
    const rounds = values.rounds === undefined ? 3 : Number(values.rounds);
    if (!Number.isInteger(rounds) || rounds < 1)
      throw new Error(`--rounds must be a positive integer, not "${values.rounds}"`);
    step(`CPU per RS256 token, the reference against oidc-provider: ${rounds} alternating rounds`);
    results.vsOidcProvider = await vsOidcProvider(
      {
        rounds,
        durationS: settings.durationS,
        warmupS: settings.warmupS,
        connections: settings.connections,
        profileDir,
      },
      (text) => step(`vs-oidc-provider: ${text}`),
    );
  }
  if (only.includes('catalog')) {
    step(`the non-browser catalog against the embedded reference, ${settings.catalogRepeat}×`);
    results.catalog = await catalogWallTime({ repeat: settings.catalogRepeat });
  }
  if (only.includes('properties')) {
    step(`property cases over loopback HTTP, ${settings.propertyRuns} runs per property`);
    results.properties = await propertyRate({ runs: settings.propertyRuns });
  }
  if (only.includes('memory')) {
    step(`memory: issuing ${settings.tokens.toLocaleString('en-US')} tokens, then expiring them`);
    results.memory = await memoryAfterTokens({
      tokens: settings.tokens,
      alg: 'EdDSA',
      connections: settings.connections,
    });
  }
  if (only.includes('redis')) {
    step(
      `Redis: throughput with memory, 1 and 2 instances on Redis (${settings.durationS} s each); ` +
        `then ${settings.tokens.toLocaleString('en-US')} tokens expiring by Redis TTL`,
    );
    results.redis = await redisFigures({
      alg: 'EdDSA',
      durationS: settings.durationS,
      warmupS: settings.warmupS,
      connections: settings.connections,
      tokens: settings.tokens,
    });
  }
  if (only.includes('browser')) {
    step('the whole catalog against the embedded reference with the form driver, then the browser driver');
    results.browser = await browserDriverWallTime('reference');
  }
  if (drivers) {
    step(
      `the whole catalog with the form, auto and browser login drivers, ${drivers.rounds} round(s) each, ` +
        `against ${drivers.targets.join(', ')}`,
    );
    results.drivers = await driversBench(drivers, step);
  }
  if (only.includes('latency')) {
    const latency = latencyOptions(values);
    step(`the non-browser catalog behind ${latency.delaysMs.join(', ')} ms per response`);
    results.latency = await latencyBench(latency, step);
  }
  results.machine.loadAverage.end = loadavg()[0] ?? 0;
  results.durationS = Math.round((performance.now() - started) / 100) / 10;
  const full: BenchResults = { ...results, targets: evaluateTargets(results) };
  await writeFile(values.out, `${JSON.stringify(full, null, 2)}\n`);
  console.log(renderTable(full));
  if (full.vsOidcProvider) console.log(`\n${renderVsOidcProvider(full.vsOidcProvider)}`);
  if (full.redis) console.log(`\n${renderRedis(full.redis)}`);
  if (full.drivers) console.log(`\n${renderDriverBench(full.drivers)}`);
  if (full.latency) console.log(`\n${renderLatency(full.latency)}`);
  console.log(
    `\n${values.out} written (${full.durationS} ` +
      `s).${profileDir ? ` CPU profiles in ${profileDir} (npx tsx bench/cpu-profile.ts FILE).` : ''}`,
  );
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`bench: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
