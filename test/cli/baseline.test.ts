/**
 * `run --baseline` and `--flaw` end to end: a clean run, then a run with a planted flaw compared
 * with it. Every format names the flaw and shows the new failure; the runner marks the deciding
 * exchange of the failed check; --format sarif writes report.sarif; a bad baseline is a usage error.
 */
import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import type { HttpEvidence, Report } from '../../harness/model/results.ts';
import { reportSchema } from '../../reports/schema.ts';
import { cli } from '../support/cli.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'idpc-baseline-'));
});

const ONLY = 'pkce.verifier-mismatch,pkce.plain-rejected';
const read = (d: string, f: string) => readFile(path.join(d, f), 'utf8');

describe('run --baseline with a planted flaw', () => {
  it('shows the new failure and the flaw in the console and in every report', async () => {
    const before = path.join(dir, 'before');
    expect((await cli('run', '--only', ONLY, '--seed', '3', '--report', before, '--format', 'json')).code).toBe(0);

    const after = path.join(dir, 'after');
    const { code, stdout } = await cli(
      'run',
      '--flaw',
      'pkce-verifier-ignored',
      '--only',
      ONLY,
      '--seed',
      '3',
      '--report',
      after,
      '--format',
      'json,junit,html,md,sarif',
      '--baseline',
      path.join(before, 'report.json'),
    );
    expect(code).toBe(1);
    expect(stdout).toContain(`compared with ${path.join(before, 'report.json')}`);
    expect(stdout).toContain('new failures: pkce.verifier-mismatch (passed → failed)');
    expect(stdout).toContain('!! Planted flaws were on: pkce-verifier-ignored.');
    expect((await readdir(after)).sort()).toEqual([
      'junit.xml',
      'report.html',
      'report.json',
      'report.md',
      'report.sarif',
    ]);

    const report = reportSchema.parse(JSON.parse(await read(after, 'report.json'))) as Report;
    expect(report.plantedFlaws).toEqual(['pkce-verifier-ignored']);
    expect(report.baseline).toMatchObject({
      newFailures: [{ id: 'pkce.verifier-mismatch', from: 'passed', to: 'failed' }],
      fixed: [],
      changed: [],
    });
    // The runner marked the exchange the check failed on: the token request with the wrong verifier.
    const failed = report.results.find((r) => r.id === 'pkce.verifier-mismatch')!;
    const decisive = failed.evidence.filter((e): e is HttpEvidence => e.kind === 'http' && !!e.decisive);
    expect(decisive).toHaveLength(1);
    expect(decisive[0]!.request.url).toMatch(/\/token$/);
    expect(decisive[0]!.response?.status).toBe(200);
    const passed = report.results.find((r) => r.id === 'pkce.plain-rejected')!;
    expect(passed.evidence.some((e) => e.kind === 'http' && e.decisive)).toBe(false);

    const html = await read(after, 'report.html');
    expect(html).toContain('id="planted-flaws"');
    expect(html).toContain('id="baseline"');
    expect(html.indexOf('id="r-pkce-verifier-mismatch"')).toBeLessThan(html.indexOf('id="r-pkce-plain-rejected"'));
    const md = await read(after, 'report.md');
    expect(md).toContain('> **Warning:** Planted flaws were on\\: pkce\\-verifier\\-ignored\\.');
    expect(md).toContain('- new failures\\: pkce\\.verifier\\-mismatch \\(passed → failed\\)');
    const junit = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(
      await read(after, 'junit.xml'),
    ) as {
      testsuites: { testsuite: { properties: { property: { name: string; value: string }[] } } };
    };
    const props = Object.fromEntries(junit.testsuites.testsuite.properties.property.map((p) => [p.name, p.value]));
    expect(props).toMatchObject({
      plantedFlaws: 'pkce-verifier-ignored',
      seed: '3',
      'baseline.newFailures': 'pkce.verifier-mismatch',
    });
    const sarif = JSON.parse(await read(after, 'report.sarif')) as {
      runs: { results: { ruleId: string; baselineState: string }[] }[];
    };
    expect(sarif.runs[0]!.results).toEqual([
      expect.objectContaining({ ruleId: 'pkce.verifier-mismatch', baselineState: 'new' }),
    ]);
  }, 120_000);

  it('a baseline that is missing or not a report is a usage error (exit 2) before anything runs', async () => {
    const missing = await cli(
      'run',
      '--only',
      ONLY,
      '--baseline',
      path.join(dir, 'nope.json'),
      '--report',
      path.join(dir, 'x'),
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--baseline: .*nope\.json does not exist/);
    const bad = path.join(dir, 'bad.json');
    await writeFile(bad, '{"results": "no"}');
    const wrong = await cli('run', '--only', ONLY, '--baseline', bad, '--report', path.join(dir, 'x'));
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/bad\.json is not a report\.json: results/);
  });
});
