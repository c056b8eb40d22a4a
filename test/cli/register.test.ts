/**
 * `run --register` as a user runs it, in a child process: the clients it registered are deleted when the run is
 * interrupted (Ctrl-C: SIGINT, or SIGTERM), and the process then ends as the signal would have ended it.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Registrar, startRegistrar } from '../support/registrar.ts';
import { spawnCli, waitFor } from '../support/spawn-cli.ts';

/** A scenario that needs the confidential client and then waits: the run is interrupted while it does. */
const WAITING_SCENARIO = `
import { defineScenario } from 'idp-conformance';

export default defineScenario({
  id: 'reg.waits',
  title: 'Waits with a registered client',
  requirements: { rule: { spec: 'RFC 7591', section: '3', level: 'MUST', party: 'server' } },
  severity: 'info',
  requires: { roles: ['confidential'] },
  async run() {
    console.log('scenario: waiting');
    await new Promise((resolve) => setTimeout(resolve, 120_000));
  },
});
`;

let registrar: Registrar | undefined;
afterEach(async () => {
  await registrar?.close();
  registrar = undefined;
});

describe('run --register, interrupted', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    'deletes the registered clients on %s, then exits with %i',
    async (signal, code) => {
      registrar = await startRegistrar();
      const dir = await mkdtemp(path.join(tmpdir(), 'idpc-register-'));
      const scenario = path.join(dir, 'waits.ts');
      await writeFile(scenario, WAITING_SCENARIO);
      const run = spawnCli([
        'run',
        '--target',
        registrar.issuer,
        '--register',
        '--scenarios',
        scenario,
        '--only',
        'reg.*',
        '--timeout',
        '120000',
        '--report',
        path.join(dir, 'report'),
      ]);
      try {
        await waitFor(run.output, 'scenario: waiting', 60_000);
        expect(registrar.clients.size).toBe(1);
        run.child.kill(signal);
        expect(await run.exited).toBe(code);
      } finally {
        run.child.kill('SIGKILL');
      }
      expect(run.output()).toContain(`registration: ${signal}: deleting the registered clients before stopping`);
      expect(run.output()).toContain('registration: deleted 1 registered client');
      expect(registrar.clients.size).toBe(0);
      expect(registrar.requests.filter((r) => r.method === 'DELETE')).toHaveLength(1);
    },
    120_000, // spawns the CLI, which loads the catalog: generous on a loaded machine
  );

  it('an IdP without a registration endpoint is a config error naming registration.endpoint (exit 2)', async () => {
    registrar = await startRegistrar({ noEndpoint: true });
    const dir = await mkdtemp(path.join(tmpdir(), 'idpc-register-'));
    const run = spawnCli(['run', '--target', registrar.issuer, '--register', '--report', path.join(dir, 'report')]);
    expect(await run.exited).toBe(2);
    expect(run.output()).toContain('registration.endpoint: the discovery document has no registration_endpoint');
    expect(registrar.requests.filter((r) => r.method === 'POST')).toEqual([]);
  }, 60_000); // spawns the CLI

  it('--register without --target is a usage error', async () => {
    const run = spawnCli(['run', '--register']);
    expect(await run.exited).toBe(2);
    expect(run.output()).toContain('--register needs --target');
  }, 60_000); // spawns the CLI
});
