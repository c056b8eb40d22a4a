/**
 * Starts the reference server (bench/server-process.ts), or oidc-provider (bench/oidc-provider-process.ts), in its own
 * process and talks to it.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import type { SigningAlg } from '../reference/index.ts';
import type { BenchClient, BenchRequest, BenchResponse, MemorySample } from './protocol.ts';
import type { RawSignOptions, RawSignResult } from './signing.ts';

export interface ServerProcessOptions {
  alg: SigningAlg;
  /** A redis:// URL: the server uses the Redis store (and the key shared there) instead of memory. */
  store?: string;
  /** Access-token lifetime in seconds (default the reference's). */
  accessTokenS?: number;
  /** Which server: the reference (default) or oidc-provider (its interop fixture, RS256 JWT access tokens). */
  program?: 'reference' | 'oidc-provider';
  /** In a process group of its own (the child leads it), so that its CPU can be read per group from /proc. */
  detached?: boolean;
}

/** The child's next message; an error if it exits first. */
function nextMessage(child: ChildProcess, when: string): Promise<BenchResponse> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: BenchResponse) => {
      child.off('exit', onExit);
      resolve(message);
    };
    const onExit = (code: number | null) => {
      child.off('message', onMessage);
      reject(new Error(`the server process exited (code ${String(code)}) ${when}`));
    };
    child.once('message', onMessage);
    child.once('exit', onExit);
  });
}

type Reply<T extends BenchResponse['type']> = Omit<Extract<BenchResponse, { type: T }>, 'type'>;

export class ServerProcess {
  readonly #child: ChildProcess;
  readonly issuer: string;
  readonly alg: SigningAlg;
  readonly kid: string;
  /** The client to authenticate as; undefined: the reference's seeded machine client. */
  readonly client: BenchClient | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  private constructor(child: ChildProcess, ready: Reply<'ready'>) {
    this.#child = child;
    this.issuer = ready.issuer;
    this.alg = ready.alg;
    this.kid = ready.kid;
    this.client = ready.client;
  }

  /** The child's process id (with `detached`, also its process group's). */
  get pid(): number {
    const pid = this.#child.pid;
    if (pid === undefined) throw new Error('the server process has no pid');
    return pid;
  }

  static async start(options: ServerProcessOptions): Promise<ServerProcess> {
    const execArgv = ['--expose-gc', '--import', 'tsx'];
    const script = options.program === 'oidc-provider' ? './oidc-provider-process.ts' : './server-process.ts';
    const child = fork(new URL(script, import.meta.url), [], {
      execArgv,
      detached: options.detached === true,
      env: {
        ...process.env,
        BENCH_SIGNING_ALG: options.alg,
        ...(options.store ? { BENCH_STORE: options.store } : {}),
        ...(options.accessTokenS ? { BENCH_ACCESS_TOKEN_S: String(options.accessTokenS) } : {}),
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const message = await nextMessage(child, 'before it was ready');
    if (message.type !== 'ready') throw new Error(`the server process answered ${message.type} instead of ready`);
    return new ServerProcess(child, message);
  }

  /** One request at a time; the answer is the next message. */
  #ask<T extends BenchResponse['type']>(request: BenchRequest & { type: T }): Promise<Reply<T>> {
    const asked = this.#queue.then(async () => {
      if (this.#child.exitCode !== null)
        throw new Error(`the server process has exited (code ${this.#child.exitCode})`);
      this.#child.send(request);
      const message = await nextMessage(this.#child, `while answering ${request.type}`);
      if (message.type === 'error') throw new Error(`the server process failed: ${message.message}`);
      if (message.type !== request.type)
        throw new Error(`the server process answered ${message.type} to ${request.type}`);
      const { type: _, ...reply } = message;
      return reply as Reply<T>;
    });
    this.#queue = asked.catch(() => undefined);
    return asked;
  }

  rawSignRate(options: RawSignOptions): Promise<RawSignResult> {
    return this.#ask({ type: 'raw-sign', ...options });
  }

  memory(): Promise<MemorySample> {
    return this.#ask({ type: 'memory' });
  }

  /** CPU time the server process has used so far (user and system, microseconds). */
  cpu(): Promise<Reply<'cpu'>> {
    return this.#ask({ type: 'cpu' });
  }

  /** Starts the V8 CPU profiler on the server's main thread. */
  async profileStart(): Promise<void> {
    await this.#ask({ type: 'profile-start' });
  }

  /** Stops it and writes the profile (a .cpuprofile file, for Chrome DevTools or bench/cpu-profile.ts). */
  async profileStop(file: string): Promise<void> {
    await this.#ask({ type: 'profile-stop', file });
  }

  advanceClock(ms: number): Promise<Reply<'advance-clock'>> {
    return this.#ask({ type: 'advance-clock', ms });
  }

  async close(): Promise<void> {
    if (this.#child.exitCode !== null) return;
    const exited = once(this.#child, 'exit');
    await this.#ask({ type: 'close' });
    await exited;
  }
}
