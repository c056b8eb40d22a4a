/**
 * A redis-server of the test's own: started on a free loopback port with nothing persisted,
 * stopped by its PID. scripts/ensure-redis.ts installs Debian's redis-server when it is missing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { findRedisServer } from './ensure-redis.ts';
import { unusedLoopbackPort as closedPort } from '../harness/http/ports.ts';
import { errorMessage } from '../protocol/guards.ts';

export interface RunningRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export async function startRedis(): Promise<RunningRedis> {
  const binary = findRedisServer(process.env);
  if (!binary)
    throw new Error(
      "redis-server is not installed: npx tsx scripts/ensure-redis.ts (as root) installs Debian's redis-server",
    );
  const port = await closedPort();
  const child: ChildProcess = spawn(
    binary,
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--daemonize',
      'no',
      '--protected-mode',
      'yes',
      '--loglevel',
      'warning',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `redis://127.0.0.1:${port}`;
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => {}); // each failed attempt is retried below
  for (let attempt = 0; ; attempt++) {
    try {
      await probe.connect();
      await probe.ping();
      break;
    } catch (err) {
      probe.disconnect();
      if (child.exitCode !== null || attempt >= 100) {
        child.kill('SIGKILL');
        throw new Error(`redis-server did not start on ${url}: ${errorMessage(err)} ${stderr}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  probe.disconnect();
  return {
    url,
    port,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
