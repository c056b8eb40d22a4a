/** The command line as a user runs it: `node bin/idp-conformance.js serve|run`, in a child process. */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unusedLoopbackPort } from '../../harness/http/ports.ts';
import { spawnCli, waitFor } from '../support/spawn-cli.ts';
import { OPT_IN } from '../matrix/opt-in.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';

const start = spawnCli;

/** Nothing but the legacy-grant scenarios skipped (no legacy client unless --legacy-client), each for that reason. */
function expectOnlyLegacySkipped(report: { results: { id: string; status: string; skipReason?: string }[] }): void {
  // ...and the opt-in ones (par.required: the default reference does not require PAR), and those
  // only a client rule requires (no server verdict: pkce.verifier-format).
  const clientOnly = (r: { skipReason?: string }) => /of the server: .* binds? the client/.test(r.skipReason ?? '');
  const skipped = report.results.filter(
    (r) => r.status === 'skipped' && !Object.hasOwn(OPT_IN, r.id) && !clientOnly(r),
  );
  expect(skipped.map((r) => [r.id, r.skipReason])).toEqual(
    skipped.map((r) => [r.id, 'needs the legacy client (clients.legacy in the target config)']),
  );
  // The legacy grants' areas, and the scenarios of other areas that ask the legacy client for those grants
  // (form-post.implicit-hybrid): every one requires the legacy role.
  const legacy = new Set(BUILT_IN_SCENARIOS.filter((s) => s.requires?.roles?.includes('legacy')).map((s) => s.id));
  expect(skipped.filter((r) => !legacy.has(r.id)).map((r) => r.id)).toEqual([]);
}

describe('idp-conformance serve --port 0 --target-out FILE', () => {
  let dir = '';
  let proc: ReturnType<typeof start>;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'idpc-serve-'));
    // --admin-hooks: the written config names the key-rotation hook, so jwks.rotation runs too;
    // --registration: discovery names the registration endpoint, so the registration scenarios run.
    const out = join(dir, 'nested', 't.json');
    // --backchannel-logout-uri: the written config names it, so logout.back-channel runs too.
    const backchannel = `http://127.0.0.1:${await unusedLoopbackPort()}/backchannel-logout`;
    proc = start([
      'serve',
      '--port',
      '0',
      '--admin-hooks',
      '--registration',
      '--backchannel-logout-uri',
      backchannel,
      '--target-out',
      out,
    ]);
    await waitFor(proc.output, 'Press Ctrl+C to stop.');
  });
  afterAll(async () => {
    if (proc.child.exitCode === null) proc.child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  it('prints the issuer and the seeded clients, and writes a target config the server answers to', async () => {
    const issuer = /issuer\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(proc.output())?.[1];
    expect(issuer).toBeDefined();
    for (const id of ['web-app', 'partner-app', 'spa', 'machine', 'tv-device', 'exchanger'])
      expect(proc.output()).toContain(id);
    const target = JSON.parse(await readFile(join(dir, 'nested', 't.json'), 'utf8'));
    expect(target).toMatchObject({
      issuer,
      tokenRequestEncoding: 'form',
      user: { username: 'alice', password: expect.any(String) },
      login: { driver: 'auto' },
      expectedFailures: [],
      hooks: { rotateKeys: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/admin\/[\w-]+\/rotate-keys$/) },
      clients: {
        confidential: {
          clientId: 'web-app',
          clientSecret: expect.any(String),
          redirectUri: expect.any(String),
          authMethod: 'client_secret_basic',
          firstParty: true,
          backchannelLogoutUri: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/backchannel-logout$/),
        },
        confidential2: { clientId: 'partner-app', authMethod: 'client_secret_basic' },
        public: { clientId: 'spa', authMethod: 'none', firstParty: false },
        machine: { clientId: 'machine', scope: 'api:read' },
        device: { clientId: 'tv-device', authMethod: 'none' },
        exchange: { clientId: 'exchanger', clientSecret: expect.any(String) },
      },
    });
    expect(target.clients.public).not.toHaveProperty('clientSecret');
    const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as { issuer: string };
    expect(discovery.issuer).toBe(issuer);
    const machine = target.clients.machine;
    const res = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${btoa(`${machine.clientId}:${machine.clientSecret}`)}`,
      },
      body: 'grant_type=client_credentials',
    });
    expect(res.status).toBe(200);
  });

  it('the harness run against the written target config passes every scenario (exit 0)', async () => {
    const run = start([
      'run',
      '--target',
      join(dir, 'nested', 't.json'),
      '--report',
      join(dir, 'report'),
      '--format',
      'json',
    ]);
    expect(await run.exited).toBe(0);
    expect(run.output()).toMatch(/\d+ scenarios: \d+ passed, 0 failed, 0 warnings, \d+ skipped, 0 errors/);
    const report = JSON.parse(await readFile(join(dir, 'report', 'report.json'), 'utf8'));
    expect(report.target.source).toBe('file');
    expectOnlyLegacySkipped(report);
  }, 240_000); // runs the whole catalog: generous on a loaded machine

  it('stops cleanly on SIGTERM with exit code 0', async () => {
    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
    expect(proc.output()).toContain('stopping the reference server');
  });
});

describe('command-line errors and the embedded run', () => {
  it('serve --flaw warns loudly; an unknown flaw or a bad port is a usage error (exit 2)', async () => {
    const flawed = start(['serve', '--port', '0', '--flaw', 'state-dropped']);
    await waitFor(flawed.output, 'Press Ctrl+C to stop.');
    expect(flawed.output()).toMatch(/WARNING: PLANTED FLAWS ARE ON/);
    expect(flawed.output()).toMatch(/state-dropped/);
    flawed.child.kill('SIGINT');
    expect(await flawed.exited).toBe(0);

    const unknown = start(['serve', '--flaw', 'no-such-flaw']);
    expect(await unknown.exited).toBe(2);
    expect(unknown.output()).toContain('unknown flaw "no-such-flaw"');
    const badPort = start(['serve', '--port', 'eighty']);
    expect(await badPort.exited).toBe(2);
    expect(badPort.output()).toContain('--port must be an integer');
  });

  it('serve --users N --target-out lists the other users; --users and --slow-ms are checked (exit 2)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'idpc-users-'));
    const out = join(dir, 't.json');
    const serving = start(['serve', '--port', '0', '--users', '3', '--target-out', out]);
    await waitFor(serving.output, 'Press Ctrl+C to stop.');
    const written = JSON.parse(await readFile(out, 'utf8'));
    expect(written.user.username).toBe('alice');
    expect(written.users.map((u: { username: string }) => u.username)).toEqual(['alice-2', 'alice-3']);
    serving.child.kill('SIGINT');
    expect(await serving.exited).toBe(0);
    await rm(dir, { recursive: true, force: true });

    const tooMany = start(['serve', '--users', '17']);
    expect(await tooMany.exited).toBe(2);
    expect(tooMany.output()).toContain('--users must be a whole number from 1 to 16, not "17"');
    const notSlow = start(['run', '--slow-ms', '100']);
    expect(await notSlow.exited).toBe(2);
    expect(notSlow.output()).toContain('--slow-ms sets the delay of --variant slow; add --variant slow');
    const withTarget = start(['run', '--target', 'https://idp.example', '--users', '2']);
    expect(await withTarget.exited).toBe(2);
    expect(withTarget.output()).toContain('--users and --slow-ms apply to the embedded reference only');
  }, 120_000);

  it('run starts the embedded reference, runs the suites against it and exits 0', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'idpc-run-'));
    const run = start(['run', '--report', join(dir, 'report'), '--format', 'json']);
    expect(await run.exited).toBe(0);
    expect(run.output()).toMatch(/idp-conformance: http:\/\/127\.0\.0\.1:\d+ \(the embedded reference server\)/);
    expect(run.output()).toMatch(/\d+ scenarios: \d+ passed, 0 failed, 0 warnings, \d+ skipped, 0 errors/);
    expectOnlyLegacySkipped(JSON.parse(await readFile(join(dir, 'report', 'report.json'), 'utf8')));
    await rm(dir, { recursive: true, force: true });
  }, 240_000); // runs the whole catalog: generous on a loaded machine

  it('an unknown command is exit 2 with the command list; --help is exit 0', async () => {
    const unknown = start(['frobnicate']);
    expect(await unknown.exited).toBe(2);
    expect(unknown.output()).toContain('unknown command "frobnicate"');
    const help = start(['serve', '--help']);
    expect(await help.exited).toBe(0);
    expect(help.output()).toContain('--target-out FILE');
  });
});
