/**
 * The command line as a new user meets it (issue 17 item 4): --version, the quick start against
 * the init template, the command init prints, --only/--skip that meant an area, "1 scenario", a
 * legacy flaw on the embedded reference, an issuer URL alone, stale screenshots, a wrong
 * CHROMIUM_PATH. Runs go against the embedded reference on 127.0.0.1 with a narrow --only.
 */
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'jsonc-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmbeddedReference, startEmbeddedReference } from '../../cli/embedded.ts';
import {
  RENAMED_FLAWS,
  RENAMED_SCENARIOS,
  clientlessNotice,
  needsLegacyClient,
  patternHints,
  renamedFlawHint,
  runCommandFor,
} from '../../cli/hints.ts';
import { isFlawName } from '../../protocol/flaw-names.ts';
import { template } from '../../cli/init.ts';
import type { Report } from '../../harness/model/results.ts';
import { summaryLine } from '../../reports/format.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';
import { cli } from '../support/cli.ts';
import { sampleReport, sampleResults } from '../support/report-fixture.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RUN_MS = 120_000;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'idpc-papercuts-'));
});

const readReport = async (reportDir: string) =>
  JSON.parse(await readFile(path.join(reportDir, 'report.json'), 'utf8')) as Report;

describe('--version', () => {
  it("prints package.json's version", async () => {
    const { version } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-v']) {
      const { code, stdout } = await cli(flag);
      expect(code).toBe(0);
      expect(stdout.trim()).toBe(version);
    }
  });
});

describe('the quick start and the init template', () => {
  /** The ${VAR} names in a text. */
  const variables = (text: string) => new Set([...text.matchAll(/\$\{([A-Z][A-Z0-9_]*)\}/g)].map((m) => m[1]!));

  it("the README quick start's command exports exactly the variables the template's active entries need", () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const section = /^## Quick start\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1];
    expect(section, 'README.md has a "## Quick start" section').toBeDefined();
    const line = section!.split('\n').find((l) => /^\s*(?:[A-Z][A-Z0-9_]*=\S*\s+)+\S/.test(l));
    expect(line, 'the quick start sets the secrets on a command line').toBeDefined();
    const exported = new Set([...line!.matchAll(/([A-Z][A-Z0-9_]*)=/g)].map((m) => m[1]!));
    // What the loader will require: the variables in the template's JSON, not those in its comments.
    const active = variables(JSON.stringify(parse(template('x'), [], { allowTrailingComma: true })));
    expect([...exported].sort()).toEqual([...active].sort());
    // Every variable the template's comments mention for optional roles is named for the user.
    for (const name of variables(template('x'))) expect(template('x')).toContain(name);
  });
});

describe('init prints the command as the user can run it', () => {
  it('inside this repository: npm run conformance -- --target FILE', async () => {
    expect(runCommandFor(path.join(ROOT, 'my-idp.jsonc'), ROOT)).toBe('npm run conformance -- --target my-idp.jsonc');
    expect(runCommandFor(path.join(ROOT, 'cli', 'x.jsonc'), path.join(ROOT, 'cli'))).toBe(
      'npm run conformance -- --target x.jsonc',
    );
  });

  it('anywhere else (npx, an installed bin): npx idp-conformance run --target FILE, quoted when needed', async () => {
    const project = path.join(dir, 'consumer');
    await mkdir(project, { recursive: true });
    await writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'my-app', scripts: {} }));
    expect(runCommandFor(path.join(project, 'idp.jsonc'), project)).toBe('npx idp-conformance run --target idp.jsonc');
    expect(runCommandFor(path.join(project, 'my idp.jsonc'), project)).toBe(
      "npx idp-conformance run --target 'my idp.jsonc'",
    );
  });

  it('the init command prints it (run from this repository)', async () => {
    const file = path.join(dir, 'printed.jsonc');
    const { code, stdout } = await cli('init', file);
    expect(code).toBe(0);
    expect(stdout).toContain(`npm run conformance -- --target ${path.relative(process.cwd(), file)}`);
    expect(stdout).not.toMatch(/^\s*idp-conformance run/m);
  });
});

describe('--only/--skip that meant an area', () => {
  const ids = BUILT_IN_SCENARIOS.map((s) => s.id);

  it('suggests AREA.* for an area, PREFIX* for a prefix, nothing for a pattern that matches', () => {
    expect(patternHints(ids, ['pkce'], '--only')).toEqual([
      "--only pkce matches no scenario id; did you mean --only 'pkce.*'?",
    ]);
    expect(patternHints(ids, ['pkce.'], '--skip')).toEqual([
      "--skip pkce. matches no scenario id; did you mean --skip 'pkce.*'?",
    ]);
    expect(patternHints(ids, ['pkc'], '--only')[0]).toContain("did you mean --only 'pkc*'?");
    expect(patternHints(ids, ['pkce.*', 'discovery.document'], '--only')).toEqual([]);
    expect(patternHints(ids, ['no-such-area'], '--only')).toEqual([]);
  });

  it('names the new id of a renamed scenario, and every new id and flaw name exists', () => {
    expect(patternHints(ids, ['pkce.method-absent'], '--only')).toEqual([
      '--only pkce.method-absent: the scenario was renamed; use --only pkce.default-method',
    ]);
    for (const now of Object.values(RENAMED_SCENARIOS)) expect(ids).toContain(now);
    for (const old of Object.keys(RENAMED_SCENARIOS)) expect(ids).not.toContain(old);
    for (const now of Object.values(RENAMED_FLAWS)) expect(isFlawName(now)).toBe(true);
    for (const old of Object.keys(RENAMED_FLAWS)) expect(isFlawName(old)).toBe(false);
    expect(renamedFlawHint('registration-token-unchecked')).toContain('"registration-management-open"');
    expect(renamedFlawHint('no-such-flaw')).toBe('');
  });

  it('run --only pkce and --skip pkce stop with the suggestion (exit 2); so does list --only pkce', async () => {
    for (const args of [
      ['run', '--only', 'pkce'],
      ['run', '--skip', 'pkce'],
      ['list', '--only', 'pkce'],
    ]) {
      const { code, stderr } = await cli(...args);
      expect(code, args.join(' ')).toBe(2);
      expect(stderr).toContain(`${args[1]} pkce matches no scenario id; did you mean ${args[1]} 'pkce.*'?`);
    }
  });
});

describe('"1 scenario", not "1 scenarios"', () => {
  it('the summary line and list', async () => {
    const [one] = sampleResults();
    const report = sampleReport([one!]);
    expect(summaryLine(report)).toMatch(/^1 scenario: /);
    const { stdout } = await cli('list', '--only', 'code.happy-path');
    expect(stdout).toContain('\n1 scenario (profile spec)');
    const table = await cli('list', '--only', 'code.happy-path', '--requirements');
    expect(table.stdout).not.toMatch(/\b1 scenarios\b/);
  });

  it(
    'a run of one scenario',
    async () => {
      const report = path.join(dir, 'one');
      const { stdout } = await cli('run', '--only', 'discovery.document', '--report', report, '--seed', '1');
      expect(stdout).toMatch(/\n1 scenario: 1 passed/);
      expect(await readFile(path.join(report, 'report.md'), 'utf8')).not.toMatch(/\b1 scenarios\b/);
    },
    RUN_MS,
  );
});

describe('a legacy planted flaw on the embedded reference', () => {
  it('needs the legacy client only for flaws all of whose claimants need it', () => {
    expect(needsLegacyClient(['implicit-issues-refresh'], BUILT_IN_SCENARIOS)).toBe(true);
    expect(needsLegacyClient(['password-issues-refresh'], BUILT_IN_SCENARIOS)).toBe(true);
    expect(needsLegacyClient(['pkce-plain-allowed'], BUILT_IN_SCENARIOS)).toBe(false);
    expect(needsLegacyClient([], BUILT_IN_SCENARIOS)).toBe(false);
  });

  it(
    '--flaw implicit-issues-refresh seeds the legacy client, so its scenario runs and fails',
    async () => {
      const report = path.join(dir, 'legacy');
      const { code, stdout } = await cli(
        'run',
        '--flaw',
        'implicit-issues-refresh',
        '--only',
        'implicit.no-refresh-token',
        '--report',
        report,
        '--seed',
        '2',
      );
      expect(stdout).toContain('the legacy client is seeded');
      expect(code).toBe(1);
      const [result] = (await readReport(report)).results;
      expect(result).toMatchObject({ id: 'implicit.no-refresh-token', status: 'failed' });
    },
    RUN_MS,
  );
});

describe('--target URL alone', () => {
  let reference: EmbeddedReference;
  beforeAll(async () => {
    reference = await startEmbeddedReference();
  });
  afterAll(async () => {
    await reference?.server.close();
  });

  it('the notice counts the scenarios that need a client or a user', () => {
    const needing = BUILT_IN_SCENARIOS.filter((s) => s.requires?.roles?.length || s.requires?.user).length;
    const notice = clientlessNotice(BUILT_IN_SCENARIOS)!;
    expect(needing).toBeGreaterThan(0);
    expect(notice).toContain(`no clients configured`);
    expect(notice).toContain(`${needing} of ${BUILT_IN_SCENARIOS.length} scenarios need one and will be skipped`);
    expect(notice).toContain('idp-conformance init');
    expect(clientlessNotice(BUILT_IN_SCENARIOS.filter((s) => s.id === 'discovery.document'))).toBeUndefined();
  });

  it(
    'says so plainly before the run',
    async () => {
      const report = path.join(dir, 'url');
      const { stdout } = await cli(
        'run',
        '--target',
        reference.issuer,
        '--only',
        'discovery.*,code.happy-path',
        '--report',
        report,
        '--seed',
        '3',
      );
      expect(stdout).toMatch(/no clients configured: .* 1 of \d+ scenarios need one and will be skipped/);
      expect(stdout).toContain('idp-conformance init');
    },
    RUN_MS,
  );
});

describe('stale screenshots', () => {
  it(
    "are removed at the start of a run; the user's other files in the report folder stay",
    async () => {
      const report = path.join(dir, 'stale');
      const shots = path.join(report, 'screenshots');
      await mkdir(path.join(shots, 'browser.old-scenario'), { recursive: true });
      await mkdir(path.join(shots, 'mine'), { recursive: true });
      await writeFile(path.join(shots, 'browser.old-scenario', '01-login-page.png'), 'old');
      await writeFile(path.join(shots, 'browser.old-scenario', '02-consent.png'), 'old');
      await writeFile(path.join(shots, 'mine', 'notes.txt'), 'keep me');
      await writeFile(path.join(shots, 'mine', '01-my-own.png'), 'a png the harness would have written');
      await writeFile(path.join(shots, 'README.txt'), 'keep me too');
      await writeFile(path.join(report, 'notes.md'), 'keep');
      await cli('run', '--only', 'discovery.document', '--report', report, '--seed', '4');
      expect(existsSync(path.join(shots, 'browser.old-scenario'))).toBe(false);
      expect(await readFile(path.join(shots, 'mine', 'notes.txt'), 'utf8')).toBe('keep me');
      // Not a scenario's folder, so not the harness's: kept even though the name looks like one of its files.
      expect(existsSync(path.join(shots, 'mine', '01-my-own.png'))).toBe(true);
      expect(await readFile(path.join(shots, 'README.txt'), 'utf8')).toBe('keep me too');
      expect(await readFile(path.join(report, 'notes.md'), 'utf8')).toBe('keep');
    },
    RUN_MS,
  );
});

describe('a wrong CHROMIUM_PATH', () => {
  it(
    'makes the browser scenarios errors that name the variable and the path, not skips',
    async () => {
      const report = path.join(dir, 'chromium');
      const wrong = path.join(dir, 'no-such-chromium');
      const before = process.env.CHROMIUM_PATH;
      process.env.CHROMIUM_PATH = wrong;
      try {
        await cli('run', '--only', 'browser.clickjacking', '--report', report, '--seed', '5', '--fail-on', 'error');
      } finally {
        if (before === undefined) delete process.env.CHROMIUM_PATH;
        else process.env.CHROMIUM_PATH = before;
      }
      const [result] = (await readReport(report)).results;
      expect(result).toMatchObject({ id: 'browser.clickjacking', status: 'error' });
      expect(result!.message).toContain(`CHROMIUM_PATH is "${wrong}"`);
    },
    RUN_MS,
  );
});
