/**
 * The CI recipes: action.yml (a composite GitHub Action) and docs/ci/gitlab-ci.yml. Every action
 * input named like a `run` option is one (checked against `idp-conformance run --help`), its run
 * step really passes each of them (executed with a stand-in npx that records its arguments), the
 * summary step appends report.md, and the verdict step fails as the run's exit code says.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { BIN } from '../support/spawn-cli.ts';

const root = new URL('../../', import.meta.url);
interface Step {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
  if?: string;
}
interface Action {
  inputs: Record<string, { description: string; default?: string }>;
  runs: { using: string; steps: Step[] };
}
const action = parse(readFileSync(new URL('action.yml', root), 'utf8')) as Action;
/** Inputs about the action itself, not options of `run`. */
const ACTION_ONLY = ['node-version', 'package', 'working-directory', 'artifact-name', 'upload', 'summary'];
const cliInputs = Object.keys(action.inputs).filter((name) => !ACTION_ONLY.includes(name));

/** The long options `idp-conformance run --help` lists. */
function runOptions(): string[] {
  const help = spawnSync(process.execPath, [BIN, 'run', '--help'], { encoding: 'utf8', timeout: 60_000 });
  expect(help.status).toBe(0);
  return [...help.stdout.matchAll(/^\s+(?:-\w, )?--([a-z][a-z-]*)/gm)].map((m) => m[1]!);
}

const step = (predicate: (s: Step) => boolean | undefined) => {
  const found = action.runs.steps.find(predicate);
  if (!found) throw new Error('step not found');
  return found;
};

const tmp = mkdtempSync(join(tmpdir(), 'idpc-action-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/**
 * Runs a step's bash script as the runner would: its env from `inputs`, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files.
 */
function runStep(
  s: Step,
  inputs: Record<string, string>,
  extra: { cwd: string; path?: string; outputs?: Record<string, string> },
) {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(s.env ?? {})) {
    const input = /^\$\{\{ inputs\.([a-z-]+) \}\}$/.exec(value)?.[1];
    const output = /^\$\{\{ steps\.run\.outputs\.([a-z-]+) \}\}$/.exec(value)?.[1];
    env[name] =
      input !== undefined
        ? (inputs[input] ?? action.inputs[input]?.default ?? '')
        : (extra.outputs?.[output ?? ''] ?? '');
  }
  const githubOutput = join(extra.cwd, 'github-output');
  const summary = join(extra.cwd, 'step-summary');
  writeFileSync(githubOutput, '');
  writeFileSync(summary, '');
  // As the runner runs a composite step's `shell: bash`: bash --noprofile --norc -eo pipefail {0}.
  const script = join(extra.cwd, 'step.sh');
  writeFileSync(script, s.run!);
  const result = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], {
    cwd: extra.cwd,
    encoding: 'utf8',
    timeout: 60_000,
    env: {
      PATH: `${extra.path ? `${extra.path}:` : ''}${process.env.PATH}`,
      ...env,
      GITHUB_OUTPUT: githubOutput,
      GITHUB_STEP_SUMMARY: summary,
    },
  });
  const outputs = Object.fromEntries(
    readFileSync(githubOutput, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(/=(.*)/s).slice(0, 2)),
  );
  return {
    status: result.status,
    stdout: result.stdout,
    stderr: result.stderr,
    outputs,
    summary: readFileSync(summary, 'utf8'),
  };
}

describe('action.yml', () => {
  it('is a composite action that runs idp-conformance, uploads the report folder and writes the summary', () => {
    expect(action.runs.using).toBe('composite');
    const upload = step((s) => s.uses?.startsWith('actions/upload-artifact@'));
    expect(upload.with?.path).toContain('${{ inputs.report }}');
    expect(upload.if).toContain('always()');
    expect(step((s) => s.name === 'Job summary').run).toContain('GITHUB_STEP_SUMMARY');
    expect(step((s) => s.uses?.startsWith('actions/setup-node@')).with?.['node-version']).toBe(
      '${{ inputs.node-version }}',
    );
  });

  it('names only real run options, and the run options it leaves out are deliberate', () => {
    const options = runOptions();
    expect(options).toEqual(
      expect.arrayContaining(['target', 'only', 'skip', 'profile', 'report', 'format', 'fail-on']),
    );
    for (const name of cliInputs) expect(options, `input ${name}`).toContain(name);
    // --flaw, --variant, --oauth-only, --users, --slow-ms and --code-lifetime shape the embedded reference: for
    // testing the harness, not an IdP. --with-waits (minutes per scenario) is the config's timeouts.withWaits in a job.
    const deliberate = ['flaw', 'variant', 'oauth-only', 'users', 'slow-ms', 'code-lifetime', 'with-waits', 'help'];
    expect(options.filter((o) => !cliInputs.includes(o))).toEqual(expect.arrayContaining(deliberate));
    expect(options.filter((o) => !cliInputs.includes(o) && !deliberate.includes(o))).toEqual([]);
  }, 60_000);

  it(
    'passes every option input to `idp-conformance run`, values intact, and keeps its exit code for ' + 'the verdict',
    () => {
      const bin = join(tmp, 'bin');
      mkdirSync(bin, { recursive: true });
      const argsFile = join(tmp, 'npx-args');
      // A stand-in npx: records its arguments, one per line, and exits 1 as a failing run would.
      writeFileSync(join(bin, 'npx'), `#!/usr/bin/env bash\nprintf '%s\\n' "$@" > '${argsFile}'\nexit 1\n`);
      chmodSync(join(bin, 'npx'), 0o755);
      const values: Record<string, string> = {
        target: 'tenant-a.json\ntenant b.json\n',
        scenarios: 'my/*.scenario.ts',
        only: 'pkce.*,token.*',
        skip: 'device.*',
        profile: 'rfc',
        report: 'out dir',
        format: 'junit,md',
        'fail-on': 'warning',
        seed: '42',
        runs: '7',
        concurrency: '2',
        shard: '1/3',
        timeout: '45000',
        'max-run-ms': '300000',
        baseline: 'main/report.json',
        register: 'true',
        user: 'alice:pass word:with colons',
        package: 'idp-conformance@0.1.0',
      };
      expect(
        Object.keys(values)
          .filter((k) => k !== 'package')
          .sort(),
      ).toEqual([...cliInputs].sort());
      const result = runStep(
        step((s) => s.id === 'run'),
        values,
        { cwd: tmp, path: bin },
      );
      expect(result.status, result.stderr).toBe(0);
      expect(result.outputs).toEqual({ report: 'out dir', 'exit-code': '1' });
      const args = readFileSync(argsFile, 'utf8').trimEnd().split('\n');
      expect(args.slice(0, 4)).toEqual(['--yes', '--package=idp-conformance@0.1.0', 'idp-conformance', 'run']);
      // --register is a flag: passed once, without a value, when the input is "true".
      expect(args.filter((a) => a === '--register')).toHaveLength(1);
      const pairs = args.slice(4).filter((a) => a !== '--register');
      const passed: [string, string][] = [];
      for (let i = 0; i < pairs.length; i += 2) passed.push([pairs[i]!, pairs[i + 1]!]);
      expect(passed).toEqual(
        expect.arrayContaining([
          ['--target', 'tenant-a.json'],
          ['--target', 'tenant b.json'],
          ['--scenarios', 'my/*.scenario.ts'],
          ['--only', 'pkce.*,token.*'],
          ['--skip', 'device.*'],
          ['--profile', 'rfc'],
          ['--report', 'out dir'],
          ['--format', 'junit,md'],
          ['--fail-on', 'warning'],
          ['--seed', '42'],
          ['--runs', '7'],
          ['--concurrency', '2'],
          ['--shard', '1/3'],
          ['--timeout', '45000'],
          ['--max-run-ms', '300000'],
          ['--baseline', 'main/report.json'],
          ['--user', 'alice:pass word:with colons'],
        ]),
      );
      expect(passed).toHaveLength(17);
      expect(new Set(passed.map(([flag]) => flag.slice(2)))).toEqual(
        new Set(cliInputs.filter((i) => i !== 'register')),
      );

      // With the defaults only: the run options the action defaults, nothing empty.
      const defaults = runStep(
        step((s) => s.id === 'run'),
        {},
        { cwd: tmp, path: bin },
      );
      expect(defaults.status).toBe(0);
      expect(readFileSync(argsFile, 'utf8').trimEnd().split('\n').slice(3)).toEqual([
        'run',
        '--profile',
        'spec',
        '--report',
        'conformance-report',
        '--format',
        'json,junit,html,md',
        '--fail-on',
        'failed',
      ]);
    },
  );

  it('appends report.md of the run (or of each target) to the job summary', () => {
    const cwd = join(tmp, 'summary');
    mkdirSync(join(cwd, 'conformance-report', 'tenant-a'), { recursive: true });
    writeFileSync(join(cwd, 'conformance-report', 'report.md'), '# run\n');
    writeFileSync(join(cwd, 'conformance-report', 'tenant-a', 'report.md'), '# tenant a\n');
    const result = runStep(
      step((s) => s.name === 'Job summary'),
      {},
      { cwd },
    );
    expect(result.status).toBe(0);
    expect(result.summary).toBe('# run\n\n# tenant a\n\n');
  });

  it("fails the verdict step with the run's exit code, and when the run did not finish", () => {
    const verdict = step((s) => s.name === 'Verdict');
    expect(runStep(verdict, {}, { cwd: tmp, outputs: { 'exit-code': '0' } }).status).toBe(0);
    expect(runStep(verdict, {}, { cwd: tmp, outputs: { 'exit-code': '1' } }).status).toBe(1);
    expect(runStep(verdict, {}, { cwd: tmp, outputs: { 'exit-code': '3' } }).status).toBe(3);
    expect(runStep(verdict, {}, { cwd: tmp, outputs: {} }).status).toBe(1);
  });
});

describe('docs/ci/gitlab-ci.yml', () => {
  const gitlab = parse(readFileSync(new URL('docs/ci/gitlab-ci.yml', root), 'utf8')) as Record<
    string,
    {
      script: string[];
      artifacts: { when: string; paths: string[]; reports: { junit: string } };
    }
  >;
  const job = gitlab['idp-conformance']!;

  it('runs idp-conformance with real run options and keeps the JUnit report as a report artifact', () => {
    const command = job.script.join('\n');
    const flags = [...command.replace(/^.*?idp-conformance run/s, '').matchAll(/--([a-z][a-z-]*)/g)].map((m) => m[1]!);
    const options = runOptions();
    expect(flags.length).toBeGreaterThan(3);
    for (const flag of flags) expect(options, `--${flag}`).toContain(flag);
    const report = /--report (\S+)/.exec(command)?.[1];
    expect(job.artifacts.when).toBe('always');
    expect(job.artifacts.paths).toContain(`${report}/`);
    expect(job.artifacts.reports.junit).toBe(`${report}/junit.xml`);
    expect(command).toMatch(/--format \S*junit/);
  }, 60_000);
});

describe('docs/ci/github-workflow.yml', () => {
  const workflow = parse(readFileSync(new URL('docs/ci/github-workflow.yml', root), 'utf8')) as {
    jobs: Record<string, { steps: Step[] }>;
  };

  it('uses the action from the installed package with real inputs, and the package ships action.yml', () => {
    const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
    const uses = steps.find((s) => s.uses === './node_modules/idp-conformance');
    const inputs = Object.keys(uses?.with ?? {});
    expect(inputs.length, 'the workflow passes inputs to the action').toBeGreaterThan(0);
    for (const name of inputs) expect(Object.keys(action.inputs), name).toContain(name);
    const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { files: string[] };
    expect(pkg.files).toContain('action.yml');
  });
});
