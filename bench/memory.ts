/**
 * Reference memory: RSS and heap of the server process after a full GC, at three points:
 * warmed up with an empty store (the baseline); after issuing N tokens over HTTP (the store
 * holds a record per access token, for revocation and introspection); and after the server's
 * clock has passed their expiry and the store's own periodic sweep has run. "Flat" means the
 * last is back near the baseline: nothing per token outlives the token.
 */
import autocannon from 'autocannon';
import type { SigningAlg } from '../reference/index.ts';
import type { MemorySample } from './protocol.ts';
import { ServerProcess } from './server.ts';
import { checkTokenResponse, tokenRequest } from './throughput.ts';

export interface MemoryOptions {
  tokens: number;
  /** The store keeps the same record per token whatever the key; EdDSA issues them fastest. */
  alg: SigningAlg;
  connections: number;
}

export interface MemoryResult {
  alg: SigningAlg;
  tokens: number;
  baseline: MemorySample;
  afterIssue: MemorySample;
  afterExpiry: MemorySample;
  /** Heap per live token while they are live, bytes. */
  heapPerToken: number;
  /** Growth over the baseline after expiry, bytes. */
  retained: { rss: number; heapUsed: number };
  /** Heap back within 2 MiB and RSS within 10 % (at least 8 MiB) of the baseline, and the store empty. */
  flat: boolean;
  issueSeconds: number;
}

/** Beyond any token lifetime (access tokens live an hour at most). */
const PAST_EXPIRY_MS = 2 * 3600_000;

async function issue(server: ServerProcess, amount: number, connections: number): Promise<number> {
  const started = performance.now();
  const result = await autocannon({ ...tokenRequest(server.issuer), connections, amount });
  if (result['2xx'] !== amount)
    throw new Error(`issued ${result['2xx']} of ${amount} tokens (${result.non2xx} non-2xx, ${result.errors} errors)`);
  return (performance.now() - started) / 1000;
}

/** Moves the server's clock past every token's expiry and waits for the store's sweep to empty it. */
async function expireAll(server: ServerProcess): Promise<MemorySample> {
  await server.advanceClock(PAST_EXPIRY_MS);
  const deadline = performance.now() + 10_000;
  for (;;) {
    const sample = await server.memory();
    if (sample.storeSize === 0) return sample;
    if (performance.now() > deadline)
      throw new Error(`the store still holds ${sample.storeSize} entries after their expiry`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export async function memoryAfterTokens(options: MemoryOptions): Promise<MemoryResult> {
  const server = await ServerProcess.start({ alg: options.alg });
  try {
    await checkTokenResponse(server);
    await issue(server, 5_000, options.connections);
    const baseline = await expireAll(server);
    const issueSeconds = await issue(server, options.tokens, options.connections);
    const afterIssue = await server.memory();
    const afterExpiry = await expireAll(server);
    const retained = { rss: afterExpiry.rss - baseline.rss, heapUsed: afterExpiry.heapUsed - baseline.heapUsed };
    const flat =
      afterExpiry.storeSize === 0 &&
      retained.heapUsed <= 2 * 2 ** 20 &&
      retained.rss <= Math.max(8 * 2 ** 20, baseline.rss * 0.1);
    const heapPerToken = (afterIssue.heapUsed - baseline.heapUsed) / options.tokens;
    return {
      alg: options.alg,
      tokens: options.tokens,
      baseline,
      afterIssue,
      afterExpiry,
      heapPerToken,
      retained,
      flat,
      issueSeconds,
    };
  } finally {
    await server.close();
  }
}
