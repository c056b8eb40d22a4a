/**
 * Plain processes for the interop IdPs: spawn with output to a log file (and, line by line, to an
 * optional log callback), stop by PID and wait until the process and the children it forked
 * (FastCGI workers, nginx workers) are gone. Nothing is killed by name.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

export interface Started {
  name: string;
  child: ChildProcess;
  /** Resolves with the exit code (or the signal) once the process has exited. */
  exited: Promise<string>;
}

export function startProcess(options: {
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  logFile: string;
  log?: (line: string) => void;
}): Started {
  const { name, command, args, env, logFile, log } = options;
  const file = createWriteStream(logFile, { flags: 'w' });
  const child = spawn(command, args, { env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let rest = '';
  const onData = (chunk: Buffer) => {
    file.write(chunk);
    if (!log) return;
    const lines = (rest + chunk.toString('utf8')).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) log(`[${name}] ${line}`);
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<string>((resolve) => {
    child.once('error', (error) => resolve(`failed to start: ${error.message}`));
    child.once('exit', (code, signal) => {
      file.end();
      resolve(signal ? `signal ${signal}` : `exit code ${code}`);
    });
  });
  return { name, child, exited };
}

/** The PIDs of a process's children (Linux /proc), so they can be waited for after the parent. */
export async function childPids(pid: number): Promise<number[]> {
  try {
    const tasks = await readdir(`/proc/${pid}/task`);
    const lists = await Promise.all(
      tasks.map((t) => readFile(`/proc/${pid}/task/${t}/children`, 'utf8').catch(() => '')),
    );
    return lists.join(' ').split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Alive and not a zombie. */
async function alive(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return !/^\d+ \(.*\) Z/.test(stat);
}

/**
 * SIGTERM to the process, SIGKILL to it and its children still there after `graceMs`; resolves
 * once all of them have exited.
 */
export async function stopProcess(started: Started, graceMs = 10_000): Promise<void> {
  const pid = started.child.pid;
  if (pid === undefined || started.child.exitCode !== null || started.child.signalCode !== null) return;
  const children = await childPids(pid);
  started.child.kill('SIGTERM');
  const timeout = sleep(graceMs).then(() => 'timeout' as const);
  if ((await Promise.race([started.exited, timeout])) === 'timeout') started.child.kill('SIGKILL');
  await started.exited;
  const deadline = Date.now() + graceMs;
  for (const child of children) {
    while (await alive(child)) {
      if (Date.now() > deadline + graceMs)
        throw new Error(`${started.name}: child process ${child} did not exit after SIGKILL`);
      if (Date.now() > deadline) {
        try {
          process.kill(child, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
      await sleep(50);
    }
  }
}
