import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli, waitFor } from '../support/spawn-cli.ts';
import { closedPort } from '../support/ports.ts';
import { startRedis, type RunningRedis } from '../../scripts/redis-server.ts';

const start = spawnCli;

let redis: RunningRedis;
const started: ReturnType<typeof start>[] = [];
beforeAll(async () => {
  redis = await startRedis();
}, 60_000);
afterAll(async () => {
  for (const proc of started) if (proc.child.exitCode === null) proc.child.kill('SIGKILL');
  await redis?.stop();
});

describe('idp-conformance serve --store redis://…', () => {
  it('two instances on one Redis publish the same signing key', async () => {
    for (let i = 0; i < 2; i++) {
      const proc = start(['serve', '--port', '0', '--store', redis.url]);
      started.push(proc);
      await waitFor(proc.output, 'Press Ctrl+C to stop.', 30_000);
    }
    const issuers = started.map((proc) => /issuer\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(proc.output())?.[1]);
    const jwks = await Promise.all(issuers.map(async (issuer) => (await fetch(`${issuer}/jwks`)).json()));
    expect(jwks[0]).toEqual(jwks[1]);
    expect((jwks[0] as { keys: unknown[] }).keys).toHaveLength(1);
  }, 60_000);

  it('an unreachable Redis: exit 1 naming its address, never its password', async () => {
    const port = await closedPort();
    const proc = start(['serve', '--port', '0', '--store', `redis://:hunter2-secret@127.0.0.1:${port}`]);
    expect(await proc.exited).toBe(1);
    expect(proc.output()).toContain(`cannot use the Redis store at 127.0.0.1:${port}`);
    expect(proc.output()).not.toContain('hunter2-secret');
  }, 60_000);

  it('a store that is neither memory nor redis:// is a usage error (exit 2)', async () => {
    const proc = start(['serve', '--port', '0', '--store', 'postgres://db']);
    expect(await proc.exited).toBe(2);
    expect(proc.output()).toContain('--store must be memory or a redis:// URL');
  }, 30_000);
});
