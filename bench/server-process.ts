/**
 * The reference server under test, in a process of its own (started by bench/server.ts with
 * --expose-gc): the load generator runs in the parent, so the two compete for the machine's
 * cores as a real client and server on one host would, and the server's memory is its own.
 *
 * The parent drives it over IPC: the raw signing rate of the server's own key, memory after a
 * full GC, and moving the server's clock (to expire every token it issued).
 */
import { readFileSync } from 'node:fs';
import type { RedisStore as RedisStoreType, SigningAlg } from '../reference/index.ts';
import { answerProfileRequest } from './profiler.ts';
import type { BenchRequest, BenchResponse } from './protocol.ts';
import { rawSignRate } from './signing.ts';

/** BENCH_REFERENCE_MODULE: the compiled reference (bench/reference-build.ts); without it, the TypeScript sources. */
const { createReferenceServer, MemoryStore, RedisStore, sharedKeySet }: typeof import('../reference/index.ts') =
  await import(process.env.BENCH_REFERENCE_MODULE ?? '../reference/index.ts');
const alg = (process.env.BENCH_SIGNING_ALG ?? 'RS256') as SigningAlg;
/** Sweeps often, so that the memory benchmark sees eviction without waiting a minute. */
const sweepIntervalMs = Number(process.env.BENCH_SWEEP_MS ?? 1000);

let clockOffsetMs = 0;
const now = () => Date.now() + clockOffsetMs;
/** BENCH_STORE=redis://…: the Redis store, with the signing key shared by every instance on it. */
const redisUrl = process.env.BENCH_STORE;
/** BENCH_ACCESS_TOKEN_S: a short access-token lifetime, so Redis's own TTLs expire them during the bench. */
const accessTokenS =
  process.env.BENCH_ACCESS_TOKEN_S === undefined ? undefined : Number(process.env.BENCH_ACCESS_TOKEN_S);
const store = redisUrl
  ? new RedisStore({ url: redisUrl, prefix: 'bench:', now })
  : new MemoryStore({ now, sweepIntervalMs });
const server = createReferenceServer({
  signingAlg: alg,
  now,
  store,
  ...(redisUrl ? { keys: await sharedKeySet(store as RedisStoreType, alg, { now }) } : {}),
  ...(accessTokenS ? { lifetimes: { accessTokenFirstParty: accessTokenS, accessTokenThirdParty: accessTokenS } } : {}),
});
const { issuer, port } = await server.listen(0, '127.0.0.1');

/**
 * CPU time of the main thread alone (Linux: the first field of its schedstat, in ns), which the
 * thread pool's signing does not count in; undefined elsewhere.
 */
function mainThreadCpuUs(): number | undefined {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1000;
  } catch {
    return undefined;
  }
}

const send = (message: BenchResponse) => process.send?.(message);

async function handle(request: BenchRequest): Promise<BenchResponse> {
  const profiled = await answerProfileRequest(request);
  if (profiled) return profiled;
  switch (request.type) {
    case 'raw-sign':
      return { type: 'raw-sign', ...(await rawSignRate(server.context.keys.current, request)) };
    case 'memory': {
      const gc = (globalThis as { gc?: () => void }).gc;
      if (!gc) throw new Error('the server process needs --expose-gc');
      // Two passes: the first may only finalise what the second frees.
      gc();
      gc();
      const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
      return {
        type: 'memory',
        rss,
        heapUsed,
        heapTotal,
        external,
        arrayBuffers,
        storeSize: store instanceof RedisStore ? await store.client.dbsize() : store.size,
      };
    }
    case 'cpu': {
      const { user, system } = process.cpuUsage();
      const mainThreadUs = mainThreadCpuUs();
      return { type: 'cpu', userUs: user, systemUs: system, ...(mainThreadUs === undefined ? {} : { mainThreadUs }) };
    }
    case 'advance-clock':
      clockOffsetMs += request.ms;
      return { type: 'advance-clock', now: now() };
    case 'close':
      await server.close();
      setImmediate(() => process.exit(0));
      return { type: 'close' };
    default:
      throw new Error(`the server process does not answer ${request.type}`);
  }
}

process.on('message', (request: BenchRequest) => {
  handle(request).then(send, (error: unknown) =>
    send({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
  );
});
// The parent gone (a crash, ^C): nothing is left listening.
process.on('disconnect', () => process.exit(0));
send({ type: 'ready', issuer, port, alg, kid: server.context.keys.current.kid });
