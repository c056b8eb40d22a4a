/**
 * Test hooks from the target config (`hooks`): actions on the IdP only its operator can take.
 * `rotateKeys` is an http(s) URL the harness POSTs to (no body; any 2xx means done), or a shell
 * command it runs (exit 0 means done). Both come from the user's own config, never from the
 * target; the URL may hold a secret, so it is never written to the report.
 */
import { execFile } from 'node:child_process';
import type { TargetConfig } from '../config/load.ts';
import { PreconditionError } from '../model/failures.ts';

export interface Hooks {
  /** Present when the config names hooks.rotateKeys. Resolves once the IdP says it rotated. */
  readonly rotateKeys?: () => Promise<void>;
}

export interface HookEnvironment {
  timeoutMs: number;
  signal?: AbortSignal;
  fetch?: typeof fetch;
  note(text: string): void;
}

const isHttpUrl = (value: string) => /^https?:\/\//i.test(value) && URL.canParse(value);

export function createHooks(config: Pick<TargetConfig, 'hooks'>, env: HookEnvironment): Hooks {
  const rotate = config.hooks?.rotateKeys;
  if (rotate === undefined) return {};
  return { rotateKeys: () => (isHttpUrl(rotate) ? postHook(rotate, env) : runHook(rotate, env)) };
}

async function postHook(url: string, env: HookEnvironment): Promise<void> {
  const signal = env.signal
    ? AbortSignal.any([env.signal, AbortSignal.timeout(env.timeoutMs)])
    : AbortSignal.timeout(env.timeoutMs);
  let status: number;
  try {
    const res = await (env.fetch ?? fetch)(url, { method: 'POST', redirect: 'manual', signal });
    status = res.status;
    await res.body?.cancel();
  } catch (error) {
    throw new PreconditionError(
      `the hooks.rotateKeys URL could not be reached (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  if (status < 200 || status >= 300)
    throw new PreconditionError(
      `the hooks.rotateKeys URL answered HTTP ${status}, not 2xx, so no rotation can be assumed`,
    );
  env.note(`The key rotation hook (a POST to the configured URL) answered HTTP ${status}.`);
}

async function runHook(command: string, env: HookEnvironment): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    execFile(
      '/bin/sh',
      ['-c', command],
      { timeout: env.timeoutMs, maxBuffer: 64 * 1024, ...(env.signal ? { signal: env.signal } : {}) },
      (error, _stdout, stderr) => {
        if (!error) return resolve();
        const why = String(stderr).trim().split('\n').slice(-3).join(' / ').slice(0, 300);
        reject(
          new PreconditionError(
            `the hooks.rotateKeys command failed ` +
              `(${error.code === undefined ? error.message : `exit ${String(error.code)}`})${why ? `: ${why}` : ''}`,
          ),
        );
      },
    );
  });
  env.note('The key rotation hook (the configured command) exited 0.');
}
