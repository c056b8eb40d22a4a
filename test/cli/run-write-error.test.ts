/** `run` when the reports cannot be written: runConformance's ReportWriteError becomes exit 2 with the summary. */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { cli } from '../support/cli.ts';

it('exits 2 and says why when the report folder cannot be made, after printing the results', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'idpc-write-'));
  const blocker = path.join(dir, 'a-file');
  await writeFile(blocker, 'not a folder');
  const reportDir = path.join(blocker, 'report');
  const { code, stdout, stderr } = await cli(
    'run',
    '--only',
    'discovery.document',
    '--report',
    reportDir,
    '--seed',
    '1',
  );
  expect(code).toBe(2);
  expect(stdout).toContain('PASS  discovery.document');
  expect(stderr).toContain(`idp-conformance run: cannot write the reports to ${reportDir}: `);
}, 120_000);
