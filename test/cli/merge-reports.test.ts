/** `run --shard i/n` on several "runners" and `merge-reports` into one set of reports, as CI would. */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../harness/model/results.ts';
import { reportSchema } from '../../reports/schema.ts';
import { cli } from '../support/cli.ts';

const ONLY = 'code.*,pkce.*,discovery.*';
let dir = '';
const shardDir = (i: number) => join(dir, `shard-${i}`);
const readReport = async (folder: string) => JSON.parse(await readFile(join(folder, 'report.json'), 'utf8')) as Report;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'idpc-shards-'));
  for (const i of [1, 2, 3]) {
    const run = await cli(
      'run',
      '--only',
      ONLY,
      '--shard',
      `${i}/3`,
      '--seed',
      '7',
      '--report',
      shardDir(i),
      '--format',
      'json',
    );
    expect(run.code, run.stderr).toBe(0);
  }
}, 180_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('run --shard and merge-reports', () => {
  it('each shard ran its part; merged, the three are the whole selection once, in every format', async () => {
    const parts = await Promise.all([1, 2, 3].map((i) => readReport(shardDir(i))));
    expect(parts.map((p) => p.selection.shard)).toEqual([1, 2, 3].map((index) => ({ index, total: 3 })));
    const whole = await cli('run', '--only', ONLY, '--seed', '7', '--report', join(dir, 'whole'), '--format', 'json');
    expect(whole.code).toBe(0);
    const expected = (await readReport(join(dir, 'whole'))).results.map((r) => r.id).sort();

    const merged = await cli(
      'merge-reports',
      shardDir(1),
      shardDir(2),
      join(shardDir(3), 'report.json'),
      '--report',
      join(dir, 'merged'),
    );
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toContain('merged 3 reports');
    const report = await readReport(join(dir, 'merged'));
    expect(reportSchema.safeParse(report).success).toBe(true);
    expect(report.results.map((r) => r.id)).toEqual(expected);
    expect(report.summary.total).toBe(expected.length);
    expect(report.summary.passed).toBe(parts.reduce((n, p) => n + p.summary.passed, 0));
    expect(report.selection.shard).toBeUndefined();
    expect(report.mergedFrom?.map((m) => m.shard?.index)).toEqual([1, 2, 3]);
    for (const file of ['junit.xml', 'report.html', 'report.md']) {
      expect((await readFile(join(dir, 'merged', file), 'utf8')).length).toBeGreaterThan(100);
    }
  }, 180_000); // runs the whole selection once more: generous on a loaded machine

  it('a missing shard is said in the console and the report', async () => {
    const merged = await cli(
      'merge-reports',
      shardDir(1),
      shardDir(3),
      '--report',
      join(dir, 'partial'),
      '--format',
      'json',
    );
    expect(merged.code).toBe(0);
    expect(merged.stdout).toContain('incomplete: shard 2/3 missing from the merge');
    expect((await readReport(join(dir, 'partial'))).notices).toContain('incomplete: shard 2/3 missing from the merge');
  });

  it('refuses reports of another run, a scenario twice, and files that are not reports (exit 2)', async () => {
    const other = await readReport(shardDir(2));
    await writeFile(join(dir, 'other-seed.json'), JSON.stringify({ ...other, seed: 8 }));
    const seed = await cli('merge-reports', shardDir(1), join(dir, 'other-seed.json'), '--report', join(dir, 'x'));
    expect(seed.code).toBe(2);
    expect(seed.stderr).toContain('its seed is 8, not 7');
    const twice = await cli('merge-reports', shardDir(1), shardDir(1), '--report', join(dir, 'x'));
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/scenario \S+ is in both/);
    await writeFile(join(dir, 'bogus.json'), JSON.stringify({ hello: 1 }));
    const bogus = await cli('merge-reports', join(dir, 'bogus.json'));
    expect(bogus.code).toBe(2);
    expect(bogus.stderr).toContain('is not an idp-conformance report.json');
    const none = await cli('merge-reports', join(dir, 'nowhere'));
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('cannot read');
    // --fail-on is checked as `run` checks it: security is accepted, a typo names every choice.
    const security = await cli('merge-reports', shardDir(1), '--fail-on', 'security', '--report', join(dir, 'sec'));
    expect(security.code).toBe(0);
    const typo = await cli('merge-reports', shardDir(1), '--fail-on', 'warnings', '--report', join(dir, 'y'));
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('--fail-on must be failed, warning, error or security, not "warnings"');
  });

  it('--shard without --seed, or malformed, is a usage error', async () => {
    expect((await cli('run', '--shard', '1/2')).stderr).toContain('--shard needs --seed');
    expect((await cli('run', '--shard', '3/2', '--seed', '1')).code).toBe(2);
  });
});
