/** The command line as a user runs it: `node bin/idp-conformance.js …` in a child process. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';

export const BIN = join(import.meta.dirname, '../../bin/idp-conformance.js');

export interface Spawned {
  child: ChildProcessWithoutNullStreams;
  /** stdout and stderr so far, interleaved. */
  output: () => string;
  exited: Promise<number | null>;
}

export function spawnCli(args: string[]): Spawned {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: 'pipe' });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** Resolves once `text` appears in the output; throws with the output after `ms`. */
export async function waitFor(output: () => string, text: string, ms = 15_000): Promise<void> {
  const until = Date.now() + ms;
  while (!output().includes(text)) {
    if (Date.now() > until) throw new Error(`timed out waiting for "${text}"; output:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
