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
  /** SIGKILL, as a crash: no shutdown, no last save. */
  kill(): Promise<void>;
}

export interface RedisStartOptions {
  /** The port (default: a free one): a restart takes the port of the Redis it replaces. */
  port?: number;
  /**
   * Persist to an append-only file in this folder with appendfsync always (every write on disk before its answer),
   * as a Redis that holds an IdP's state should: a restart on the same folder finds every record again.
   */
  dir?: string;
}

export async function startRedis(options: RedisStartOptions = {}): Promise<RunningRedis> {
  const binary = findRedisServer(process.env);
  if (!binary)
    throw new Error(
      "redis-server is not installed: npx tsx scripts/ensure-redis.ts (as root) installs Debian's redis-server",
    );
  const port = options.port ?? (await closedPort());
  const persistence = options.dir
    ? ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', options.dir]
    : ['--appendonly', 'no'];
  const child: ChildProcess = spawn(
    binary,
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      ...persistence,
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
    async kill() {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
