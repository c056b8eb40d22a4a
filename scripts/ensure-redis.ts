/**
 * Makes sure a redis-server is there for the Redis store tests (npm's `pretest`, and `.ci/run`),
 * like ensure-chromium: found (REDIS_SERVER, /usr/bin/redis-server, on PATH) it says where;
 * missing, as root with apt-get, it installs Debian's redis-server (the daemon is not started:
 * each test starts its own on a loopback port); otherwise it prints the install line.
 * `--require` exits 1 when there is still none.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { executable } from '../harness/login/chromium.ts';

export const REDIS_INSTALL = 'apt-get update && apt-get install -y redis-server';

/** The redis-server binary: REDIS_SERVER, then /usr/bin/redis-server, then PATH; undefined when none. */
export function findRedisServer(env: NodeJS.ProcessEnv): string | undefined {
  if (env.REDIS_SERVER) return executable(env.REDIS_SERVER) ? env.REDIS_SERVER : undefined;
  const candidates = [
    '/usr/bin/redis-server',
    ...(env.PATH ?? '')
      .split(delimiter)
      .filter(Boolean)
      .map((dir) => join(dir, 'redis-server')),
  ];
  return candidates.find(executable);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const say = (message: string) => console.error(`ensure-redis: ${message}`);
  let found = findRedisServer(process.env);
  if (!found && !process.env.REDIS_SERVER && process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
    say("redis-server is missing; installing Debian's redis-server as root");
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    for (const args of [['update'], ['install', '-y', '--no-install-recommends', 'redis-server']]) {
      const result = spawnSync('/usr/bin/apt-get', args, { stdio: ['ignore', 'inherit', 'inherit'], env });
      if (result.status !== 0) break;
    }
    found = findRedisServer(process.env);
  }
  if (found) say(`redis-server at ${found}`);
  else
    say(
      `redis-server not found. The Redis store tests need it and fail until it is there: as root, ${REDIS_INSTALL}, ` +
        `or set REDIS_SERVER.`,
    );
  if (!found && process.argv.includes('--require')) process.exit(1);
}
