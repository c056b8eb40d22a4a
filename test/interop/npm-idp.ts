/**
 * For the set-up tests of the npm-installed interop products (openauth.test.ts, better-auth.test.ts,
 * mcp-sdk.test.ts): installs the module's packages (npm ci, or why it cannot), starts it once for the file on a free
 * loopback port in a work folder of its own, and stops it afterwards. The returned object is filled in by beforeAll.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { InteropIdp, RunningIdp } from '../../interop/idp.ts';
import { freePort } from '../../interop/support.ts';

export interface StartedIdp<Client> {
  /** Why the product cannot run here (npm ci failed), when it cannot. */
  unavailable?: string;
  issuer: string;
  clients: Record<string, Client>;
  user: { username: string; password: string };
}

export function useStartedIdp<Client>(idp: InteropIdp, timeoutMs: number): StartedIdp<Client> {
  const started: StartedIdp<Client> = { issuer: '', clients: {}, user: { username: '', password: '' } };
  let running: RunningIdp | undefined;
  let workDir = '';
  beforeAll(async () => {
    try {
      await idp.install();
    } catch (error) {
      started.unavailable = error instanceof Error ? error.message : String(error);
      return;
    }
    workDir = await mkdtemp(path.join(tmpdir(), `${idp.name}-test-`));
    running = await idp.start({ port: await freePort(), workDir });
    const target: { issuer?: unknown; clients?: unknown; user?: unknown } = running.targetConfig;
    Object.assign(started, { issuer: target.issuer, clients: target.clients, user: target.user });
  }, timeoutMs);
  afterAll(async () => {
    await running?.stop();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });
  return started;
}
