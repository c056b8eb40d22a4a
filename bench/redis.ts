/**
 * The reference on Redis (issue 20): token throughput with the in-memory store, with one
 * instance on Redis, and with two instances on one Redis (a load generator per instance, half the
 * connections each, as a load balancer would spread them); then Redis's memory after N tokens and
 * after their expiry by Redis's own TTLs (short access-token lifetime, real time: Redis's clock
 * cannot be moved like the server's).
 */
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import type { SigningAlg } from '../reference/index.ts';
import { startRedis } from '../scripts/redis-server.ts';
import { ServerProcess } from './server.ts';
import { checkTokenResponse, tokenRequest } from './throughput.ts';

export interface RedisOptions {
  alg: SigningAlg;
  durationS: number;
  warmupS: number;
  connections: number;
  tokens: number;
}

export interface StoreThroughput {
  store: 'memory' | 'redis';
  instances: number;
  perSecond: number;
  latencyMs: { p50: number; p99: number };
}

export interface RedisMemory {
  tokens: number;
  accessTokenS: number;
  /** Redis's used_memory and key count: before, with every token live, after their TTLs. */
  baseline: { usedMemory: number; keys: number };
  afterIssue: { usedMemory: number; keys: number };
  afterExpiry: { usedMemory: number; keys: number };
  /** Seconds from the last token's expiry until Redis held no key of them. */
  evictionS: number;
  /** Keys back to the baseline and used_memory within 2 MiB of it. */
  flat: boolean;
}

export interface RedisResults {
  alg: SigningAlg;
  throughput: StoreThroughput[];
  memory: RedisMemory;
}

async function measure(
  issuers: string[],
  options: RedisOptions,
): Promise<Omit<StoreThroughput, 'store' | 'instances'>> {
  const each = Math.max(1, Math.round(options.connections / issuers.length));
  const run = (durationS: number) =>
    Promise.all(
      issuers.map((issuer) => autocannon({ ...tokenRequest(issuer), connections: each, duration: durationS })),
    );
  if (options.warmupS > 0) await run(options.warmupS);
  const results = await run(options.durationS);
  const failed = results.reduce((n, r) => n + r.non2xx + r.errors + r.timeouts, 0);
  if (failed > 0)
    throw new Error(`the token endpoint failed under load: ${failed} non-2xx answers, errors or timeouts`);
  const perSecond = results.reduce((n, r) => n + r['2xx'] / r.duration, 0);
  const worst = (pick: (r: autocannon.Result) => number) => Math.max(...results.map(pick));
  return { perSecond, latencyMs: { p50: worst((r) => r.latency.p50), p99: worst((r) => r.latency.p99) } };
}

async function withServers<T>(
  count: number,
  options: { alg: SigningAlg; store?: string; accessTokenS?: number },
  body: (servers: ServerProcess[]) => Promise<T>,
): Promise<T> {
  const servers: ServerProcess[] = [];
  try {
    for (let i = 0; i < count; i++) servers.push(await ServerProcess.start(options));
    for (const server of servers) await checkTokenResponse(server);
    return await body(servers);
  } finally {
    for (const server of servers) await server.close();
  }
}

async function redisMemory(client: Redis): Promise<{ usedMemory: number; keys: number }> {
  const info = await client.info('memory');
  const usedMemory = Number(/used_memory:(\d+)/.exec(info)?.[1] ?? Number.NaN);
  return { usedMemory, keys: await client.dbsize() };
}

export async function redisFigures(options: RedisOptions): Promise<RedisResults> {
  const redis = await startRedis();
  const client = new Redis(redis.url);
  try {
    const throughput: StoreThroughput[] = [];
    throughput.push({
      store: 'memory',
      instances: 1,
      ...(await withServers(1, { alg: options.alg }, (s) =>
        measure(
          s.map((x) => x.issuer),
          options,
        ),
      )),
    });
    for (const instances of [1, 2]) {
      await client.flushdb();
      throughput.push({
        store: 'redis',
        instances,
        ...(await withServers(instances, { alg: options.alg, store: redis.url }, (s) =>
          measure(
            s.map((x) => x.issuer),
            options,
          ),
        )),
      });
    }

    await client.flushdb();
    const accessTokenS = 15;
    const memory = await withServers(1, { alg: options.alg, store: redis.url, accessTokenS }, async ([server]) => {
      const baseline = await redisMemory(client);
      const issued = await autocannon({
        ...tokenRequest(server!.issuer),
        connections: options.connections,
        amount: options.tokens,
      });
      if (issued['2xx'] !== options.tokens) throw new Error(`issued ${issued['2xx']} of ${options.tokens} tokens`);
      const afterIssue = await redisMemory(client);
      const lastExpiry = Date.now() + accessTokenS * 1000;
      const deadline = lastExpiry + 300_000;
      let afterExpiry = afterIssue;
      while (Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        afterExpiry = await redisMemory(client);
        if (Date.now() > lastExpiry && afterExpiry.keys <= baseline.keys) break;
      }
      return {
        tokens: options.tokens,
        accessTokenS,
        baseline,
        afterIssue,
        afterExpiry,
        evictionS: Math.max(0, Math.round((Date.now() - lastExpiry) / 100) / 10),
        flat: afterExpiry.keys <= baseline.keys && afterExpiry.usedMemory - baseline.usedMemory < 2 * 2 ** 20,
      };
    });
    return { alg: options.alg, throughput, memory };
  } finally {
    client.disconnect();
    await redis.stop();
  }
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

export function renderRedis(r: RedisResults): string {
  const rows = r.throughput.map(
    (t) =>
      `  ${`${t.store}${
        t.store === 'redis' ? `, ${t.instances} ` + `instance${t.instances > 1 ? 's' : ''}` : ''
      }`.padEnd(22)} ${t.perSecond.toFixed(0).padStart(6)}/s   p50 ${t.latencyMs.p50} ms, p99 ${t.latencyMs.p99} ms`,
  );
  const m = r.memory;
  return [
    `Redis store (${r.alg} tokens, client_credentials)`,
    ...rows,
    `  Redis memory: ${mib(m.baseline.usedMemory)} (${m.baseline.keys} keys) → ${mib(m.afterIssue.usedMemory)} ` +
      `(${m.afterIssue.keys} keys) after ${m.tokens.toLocaleString('en-US')} tokens` +
      ` → ${mib(m.afterExpiry.usedMemory)} (${m.afterExpiry.keys} keys) ${m.evictionS} s after ` +
      `their ${m.accessTokenS} s lifetime: ${m.flat ? 'flat' : 'NOT flat'}`,
  ].join('\n');
}
