/**
 * The npm-installed products of the interop matrix (OpenAuth, better-auth): each has a folder of its own with a
 * package.json and a committed package-lock.json (interop/<product>/server/), installed there with `npm ci` into that
 * folder's node_modules (git-ignored) — never into the project's own node_modules, whose versions it would change. The
 * product's server script in the same folder resolves its imports from there, and runs as a child process.
 *
 * Idempotent: a stamp in node_modules records the lockfile's hash, and a second call with the same lockfile does
 * nothing. Two installs at once (two test files of one vitest run) take turns through a lock folder. Native modules
 * (better-sqlite3) build with node-gyp against the running Node's own headers (`nodedir`, when it ships them, as
 * Debian's nodejs and the official tarballs do), so nothing is downloaded but the npm packages. startNodeServer runs
 * the folder's server.mjs.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { type Started, startProcess, waitForDiscovery } from './support.ts';

const run = promisify(execFile);

/** The stamp npm ci leaves behind for a lockfile. */
const STAMP = '.interop-installed';
/** A lock folder older than this is taken for a crashed install's and removed. */
const STALE_LOCK_MS = 15 * 60_000;

/** The hash of the folder's lockfile (what the stamp records). */
async function lockHash(dir: string): Promise<string> {
  return createHash('sha256')
    .update(await readFile(path.join(dir, 'package-lock.json')))
    .digest('hex');
}

/** Whether `dir`'s node_modules holds what its lockfile pins (a finished npm ci of that lockfile). */
export async function npmInstalled(dir: string): Promise<boolean> {
  const stamp = path.join(dir, 'node_modules', STAMP);
  return existsSync(stamp) && (await readFile(stamp, 'utf8')).trim() === (await lockHash(dir));
}

/** The folder whose include/node holds the running Node's headers, when there is one. */
function nodeDir(): string | undefined {
  const prefix = path.resolve(path.dirname(process.execPath), '..');
  return existsSync(path.join(prefix, 'include', 'node', 'node.h')) ? prefix : undefined;
}

/**
 * `npm ci` in `dir` unless its node_modules already holds the lockfile's packages. `what` names the product in the
 * messages; `log` gets a line when an install starts and ends.
 */
export async function npmInstall(dir: string, what: string, log: (line: string) => void = () => {}): Promise<void> {
  if (await npmInstalled(dir)) return;
  const lock = path.join(dir, '.installing');
  const deadline = Date.now() + 2 * STALE_LOCK_MS;
  for (;;) {
    try {
      await mkdir(lock);
      break;
    } catch {
      // Another install holds the lock: wait for its stamp, or take over a lock left by a crash.
      if (await npmInstalled(dir)) return;
      const age = await stat(lock).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (age > STALE_LOCK_MS) await rm(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`${what}: another npm ci in ${dir} did not finish (${lock})`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
  try {
    if (await npmInstalled(dir)) return;
    const started = performance.now();
    log(`${what}: npm ci in ${dir}`);
    const headers = nodeDir();
    const env = { ...process.env, ...(headers ? { npm_config_nodedir: headers } : {}) };
    try {
      await run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
        cwd: dir,
        env,
        maxBuffer: 64 * 1024 * 1024,
        timeout: STALE_LOCK_MS,
      });
    } catch (error) {
      const stderr = String((error as { stderr?: string }).stderr ?? (error as Error).message)
        .trim()
        .split('\n')
        .slice(-8)
        .join('\n');
      throw new Error(`${what}: npm ci in ${dir} failed:\n${stderr}`);
    }
    await writeFile(path.join(dir, 'node_modules', STAMP), `${await lockHash(dir)}\n`);
    log(`${what}: installed in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

/**
 * Starts `node server.mjs` in `dir` (the product's server, its imports from dir's node_modules) as a child process
 * with `env` (and PATH, NODE_ENV=production), and waits until `discoveryUrl` answers; stops it again when it does not.
 */
export async function startNodeServer(options: {
  dir: string;
  name: string;
  env: Record<string, string>;
  discoveryUrl: string;
  timeoutMs: number;
  log?: (line: string) => void;
}): Promise<Started> {
  const server = startProcess(process.execPath, ['server.mjs'], {
    name: options.name,
    cwd: options.dir,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NODE_ENV: 'production', ...options.env },
    ...(options.log ? { log: options.log } : {}),
  });
  try {
    await waitForDiscovery(options.discoveryUrl, server, options.timeoutMs);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}
