import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TARGET_FILE } from '../../cli/init.ts';
import { loadTarget } from '../../harness/config/load.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';
import { cli } from '../support/cli.ts';

const BIN = fileURLToPath(new URL('../../bin/idp-conformance.js', import.meta.url));
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'idpc-cmd-'));
});

const scenarioSource = (id: string, level: 'MUST' | 'SHOULD', fails: boolean) => `
import { defineScenario, CheckFailure } from 'idp-conformance';

export default defineScenario({
  id: '${id}',
  title: 'The discovery document names a token endpoint',
  requirements: { tokenEndpoint: { spec: 'RFC 8414', section: '2', level: '${level}', party: 'server' } },
  severity: 'low',
  async run(ctx) {
    const res = await ctx.http.get(ctx.target.discoveryUrl);
    if (${fails} || typeof res.body.token_endpoint !== 'string') {
      throw new CheckFailure('The discovery document has no token_endpoint; RFC 8414 §2 requires it.');
    }
  },
});
`;

describe('help', () => {
  it.each(['run', 'list', 'init', 'serve'])('%s --help exits 0 with its usage', async (command) => {
    const { code, stdout } = await cli(command, '--help');
    expect(code).toBe(0);
    expect(stdout).toContain(`Usage: idp-conformance ${command}`);
  });
});

describe('list', () => {
  it('prints every scenario with severity, level and requirements', async () => {
    const { code, stdout } = await cli('list');
    expect(code).toBe(0);
    for (const s of BUILT_IN_SCENARIOS) expect(stdout).toContain(s.id);
    expect(stdout).toMatch(/pkce\.verifier-mismatch\s+critical\s+MUST\s+MUST RFC 7636 §4\.6/);
    expect(stdout).toContain(`${BUILT_IN_SCENARIOS.length} scenarios (profile spec)`);
  });

  it('--json with --only and --profile', async () => {
    const { code, stdout } = await cli('list', '--json', '--only', 'code.happy-path', '--profile', 'rfc');
    expect(code).toBe(0);
    const rows = JSON.parse(stdout) as {
      id: string;
      level: string;
      requirements: { label: string; applies: boolean }[];
    }[];
    expect(rows.map((r) => r.id)).toEqual(['code.happy-path']);
    expect(rows[0]!.requirements.find((r) => r.label.startsWith('SPEC'))!.applies).toBe(false);
  });
});

describe('init', () => {
  it('writes a commented template that the loader accepts once its variables are set', async () => {
    const file = path.join(dir, 'sub', 'my-idp.jsonc');
    const { code, stdout } = await cli('init', file);
    expect(code).toBe(0);
    expect(stdout).toContain(`Wrote ${file}`);
    const text = await readFile(file, 'utf8');
    expect(text).toMatch(/^\/\/ idp-conformance target config/);
    expect(text).toContain('"$schema": "../../');
    const env = {
      WEB_SECRET: 'w-secret-1',
      PARTNER_SECRET: 'p-secret-1',
      MACHINE_SECRET: 'm-secret-1',
      ALICE_PASSWORD: 'a-pass-1',
    };
    const { config } = await loadTarget(file, env);
    expect(Object.keys(config.clients)).toEqual(['confidential', 'public']);
    // The optional roles are commented out; uncommented as they stand, they load too.
    const lines = text.split('\n');
    const from = lines.findIndex((l) => l.includes('More roles run more scenarios'));
    const to = lines.findIndex((l) => l.includes('// Also possible'));
    expect(from).toBeGreaterThan(0);
    const full = lines
      .map((l, i) => (i > from && i < to && /^\s*\/\/ (?:\s*"|\})/.test(l) ? l.replace('// ', '') : l))
      .join('\n');
    const fullFile = path.join(dir, 'sub', 'full.jsonc');
    await writeFile(fullFile, full);
    const loadedFull = await loadTarget(fullFile, env);
    expect(Object.keys(loadedFull.config.clients).sort()).toEqual([
      'confidential',
      'confidential2',
      'machine',
      'public',
    ]);
    await expect(loadTarget(file, {})).rejects.toThrow(
      /clients\.confidential\.clientSecret: environment variable WEB_SECRET is not set/,
    );
  });

  it('never overwrites without --force; default file name', async () => {
    const file = path.join(dir, 'existing.jsonc');
    await writeFile(file, 'mine');
    const refused = await cli('init', file);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('already exists; pass --force to overwrite it');
    expect(await readFile(file, 'utf8')).toBe('mine');
    expect((await cli('init', file, '--force')).code).toBe(0);
    expect(DEFAULT_TARGET_FILE).toBe('idp-target.jsonc');
  });
});

describe('your own scenarios (--scenarios)', () => {
  it(
    'loads files from outside the repo, runs them next to the built-in ones; --fail-on warning ' + 'counts warnings',
    async () => {
      const own = await mkdtemp(path.join(tmpdir(), 'idpc-own-'));
      await writeFile(path.join(own, 'token-endpoint.ts'), scenarioSource('custom.token-endpoint', 'MUST', false));
      await writeFile(path.join(own, 'warns.ts'), scenarioSource('custom.warns', 'SHOULD', true));
      const reportDir = path.join(dir, 'own');
      const ok = await cli(
        'run',
        '--scenarios',
        path.join(own, '*.ts'),
        '--only',
        'custom.*',
        '--report',
        reportDir,
        '--format',
        'json',
      );
      expect(ok.stdout).toContain('PASS  custom.token-endpoint');
      expect(ok.stdout).toContain('WARN  custom.warns');
      expect(ok.code).toBe(0);
      const strict = await cli(
        'run',
        '--scenarios',
        path.join(own, '*.ts'),
        '--only',
        'custom.*',
        '--fail-on',
        'warning',
        '--report',
        reportDir,
        '--format',
        'json',
      );
      expect(strict.code).toBe(1);
      expect((await cli('list', '--scenarios', path.join(own, 'warns.ts'), '--only', 'custom.*')).stdout).toContain(
        'custom.warns',
      );
    },
  );

  it('names a file that is not a scenario, a missing file, and a clashing id', async () => {
    const own = await mkdtemp(path.join(tmpdir(), 'idpc-bad-'));
    await writeFile(path.join(own, 'not-one.ts'), 'export default { id: "x.y" };\n');
    await writeFile(path.join(own, 'clash.ts'), scenarioSource('pkce.verifier-mismatch', 'MUST', false));
    expect((await cli('run', '--scenarios', path.join(own, 'not-one.ts'))).stderr).toMatch(
      /not-one\.ts has no default export made with defineScenario/,
    );
    expect((await cli('run', '--scenarios', path.join(own, 'none-*.ts'))).stderr).toMatch(/no files match/);
    const clash = await cli('run', '--scenarios', path.join(own, 'clash.ts'));
    expect(clash.code).toBe(2);
    expect(clash.stderr).toMatch(/the id "pkce\.verifier-mismatch" is already taken/);
  });

  it('through the installed command: a TS and a JS file in a temp folder import idp-conformance by name', async () => {
    const own = await mkdtemp(path.join(tmpdir(), 'idpc-bin-'));
    await writeFile(path.join(own, 'typed.ts'), scenarioSource('custom.typed', 'MUST', false));
    await writeFile(path.join(own, 'plain.mjs'), scenarioSource('custom.plain', 'MUST', false));
    const reportDir = path.join(own, 'report');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        BIN,
        'run',
        '--scenarios',
        `${own}/*.{ts,mjs}`,
        '--only',
        'custom.*,discovery.document',
        '--report',
        reportDir,
        '--format',
        'json',
      ],
      { cwd: own },
    );
    expect(stdout).toContain('PASS  custom.typed');
    expect(stdout).toContain('PASS  custom.plain');
    const report = JSON.parse(await readFile(path.join(reportDir, 'report.json'), 'utf8')) as {
      summary: { passed: number };
    };
    expect(report.summary.passed).toBe(3);
    const failed = await promisify(execFile)(
      process.execPath,
      [BIN, 'run', '--target', path.join(own, 'missing.json')],
      { cwd: own },
    ).catch((e: { code: number; stderr: string }) => e);
    expect(failed).toMatchObject({ code: 2 });
    expect((failed as { stderr: string }).stderr).toContain('cannot read');
  });
});
