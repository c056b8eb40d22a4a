/**
 * What every interop IdP module needs: Debian packages installed with apt-get (idempotent, root
 * only), child processes started on loopback and stopped by their PID, a wait for discovery, and
 * a free port. No systemd, no shell strings: every command is an argv array.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { z } from 'zod';
import { unusedLoopbackPort } from '../harness/http/ports.ts';

/** The TCP port a listening server is bound to (a server on a pipe or not listening has none: an error). */
export function portOf(server: { address(): AddressInfo | string | null }): number {
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('the server is not listening on a TCP port');
  return address.port;
}

/** What a thrown value says: an Error's message, anything else as text. */
export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The stderr a failed child process carries (execFile's error), or '' when it carries none. */
export const stderrOf = (error: unknown): string =>
  typeof error === 'object' && error !== null && 'stderr' in error ? String(error.stderr ?? '') : '';

const run = promisify(execFile);

/** The packages of `packages` that dpkg does not list as installed. */
export async function missingPackages(packages: readonly string[]): Promise<string[]> {
  const missing: string[] = [];
  for (const name of packages) {
    try {
      const { stdout } = await run('dpkg-query', ['-W', '-f=${Status}', name]);
      if (!/install ok installed/.test(stdout)) missing.push(name);
    } catch {
      missing.push(name);
    }
  }
  return missing;
}

export function aptLine(packages: readonly string[]): string {
  return `apt-get install -y --no-install-recommends ${packages.join(' ')}`;
}

/**
 * Installs the Debian packages that are missing (nothing when all are there). Needs root; otherwise
 * throws with the apt-get line to run. apt keeps the downloaded .debs in /var/cache/apt/archives,
 * so a second install on the same machine (or a CI cache of that folder) downloads nothing.
 */
export async function aptInstall(packages: readonly string[], log: (line: string) => void = () => {}): Promise<void> {
  const missing = await missingPackages(packages);
  if (!missing.length) return;
  if (process.getuid?.() !== 0) {
    throw new Error(`Debian packages missing: ${missing.join(', ')}. Install them as root: ${aptLine(missing)}`);
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  // Another apt-get may hold the lock for a while (a CI step, a second install): wait for it.
  const args = ['install', '-y', '--no-install-recommends', '-o', 'DPkg::Lock::Timeout=600', ...missing];
  log(`apt-get ${args.join(' ')}`);
  try {
    await run('apt-get', args, { env, maxBuffer: 64 * 1024 * 1024 });
  } catch {
    // A stale package list names .debs the mirror no longer has: refresh it once and try again.
    await run('apt-get', ['update', '-o', 'DPkg::Lock::Timeout=600'], { env, maxBuffer: 64 * 1024 * 1024 });
    try {
      await run('apt-get', args, { env, maxBuffer: 64 * 1024 * 1024 });
    } catch (error) {
      const stderr = stderrOf(error).trim().split('\n').slice(-5).join('\n');
      throw new Error(`${aptLine(missing)} failed:\n${stderr}`);
    }
  }
}

/** A port the kernel just handed out on 127.0.0.1 (free at the time of asking). */
export const freePort = unusedLoopbackPort;

export interface Started {
  pid: number;
  /** The last lines it wrote (stdout and stderr), for error messages. */
  tail(): string;
  /** Resolves with the exit code (or signal) when it exits. */
  exited: Promise<string>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. */
  stop(graceMs?: number): Promise<void>;
}

/** Starts one process (argv, no shell), its output going line by line to `log`. */
export function startProcess(
  command: string,
  args: readonly string[],
  options: {
    env?: NodeJS.ProcessEnv;
    cwd?: string;
    log?: (line: string) => void;
    name: string;
  },
): Started {
  const child: ChildProcess = spawn(command, args, {
    env: options.env ?? process.env,
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const take = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      lines.push(line);
      if (lines.length > 40) lines.shift();
      options.log?.(`[${options.name}] ${line}`);
    }
  };
  child.stdout?.on('data', take);
  child.stderr?.on('data', take);
  let done = false;
  // Should this process end without stop() (a killed test worker), take the child with it.
  const orphanGuard = () => {
    if (!done && child.pid !== undefined) process.kill(child.pid, 'SIGTERM');
  };
  process.once('exit', orphanGuard);
  const exited = new Promise<string>((resolve) => {
    const finish = (why: string) => {
      done = true;
      process.off('exit', orphanGuard);
      resolve(why);
    };
    child.once('exit', (code, signal) => finish(signal ?? `exit code ${code}`));
    child.once('error', (error) => {
      lines.push(error.message);
      finish(`not started: ${error.message}`);
    });
  });
  return {
    pid: child.pid ?? -1,
    tail: () => lines.join('\n'),
    exited,
    async stop(graceMs = 15_000) {
      if (done || child.pid === undefined) return;
      process.kill(child.pid, 'SIGTERM');
      const timer = setTimeout(() => {
        if (!done) process.kill(child.pid!, 'SIGKILL');
      }, graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Polls `url` until it answers 200 with JSON, or throws when `process` exits or `timeoutMs` passes. */
export async function waitForDiscovery(
  url: string,
  started: Started | undefined,
  timeoutMs = 120_000,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  let exit: string | undefined;
  void started?.exited.then((why) => {
    exit = why;
  });
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    if (exit) throw new Error(`the IdP process exited (${exit}) before ${url} answered:\n${started!.tail()}`);
    try {
      const res = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(5_000) });
      if (res.status === 200) return z.record(z.string(), z.unknown()).parse(await res.json());
      last = `HTTP ${res.status}`;
    } catch (error) {
      last = messageOf(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(
    `${url} did not answer within ${timeoutMs / 1000} s (last: ${last})${started ? `:\n${started.tail()}` : ''}`,
  );
}

/** A client as an IdP module knows it: its role in the target config, its registration, what it asks for. */
export interface ModuleClient {
  role: string;
  clientId: string;
  clientSecret?: string;
  redirectUri?: string;
  scope: string;
  firstParty: boolean;
}

/** The target config's `clients`: Basic authentication with a secret, none without. */
export function targetClients(list: readonly ModuleClient[]): Record<string, Record<string, unknown>> {
  return Object.fromEntries(
    list.map((c) => [
      c.role,
      {
        clientId: c.clientId,
        ...(c.clientSecret ? { clientSecret: c.clientSecret } : {}),
        ...(c.redirectUri ? { redirectUri: c.redirectUri } : {}),
        scope: c.scope,
        authMethod: c.clientSecret ? 'client_secret_basic' : 'none',
        firstParty: c.firstParty,
      },
    ]),
  );
}
