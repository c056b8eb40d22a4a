/** The main thread's CPU profile of one measured run, in a server process, on request (the bench's --cpu-prof). */
import { mkdir, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { dirname } from 'node:path';
import type { BenchRequest, BenchResponse } from './protocol.ts';

let profiler: Session | undefined;

/** Starts V8's sampling profiler on this thread (a sample every 200 µs). */
export async function profileStart(): Promise<void> {
  profiler ??= new Session();
  profiler.connect();
  await profiler.post('Profiler.enable');
  await profiler.post('Profiler.setSamplingInterval', { interval: 200 });
  await profiler.post('Profiler.start');
}

/** Stops it and writes the profile to `file` (a .cpuprofile, for Chrome DevTools or bench/cpu-profile.ts). */
export async function profileStop(file: string): Promise<void> {
  if (!profiler) throw new Error('no profile was started');
  const { profile } = await profiler.post('Profiler.stop');
  profiler.disconnect();
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, JSON.stringify(profile));
}

/** The answer to a profile-start or profile-stop request; undefined for any other request. */
export async function answerProfileRequest(request: BenchRequest): Promise<BenchResponse | undefined> {
  if (request.type === 'profile-start') {
    await profileStart();
    return { type: 'profile-start' };
  }
  if (request.type === 'profile-stop') {
    await profileStop(request.file);
    return { type: 'profile-stop', file: request.file };
  }
  return undefined;
}
