/** `run --target a.json --target b.json`: a report per target and an index page; the worst outcome is the exit code. */
import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmbeddedReference, startEmbeddedReference } from '../../cli/embedded.ts';
import { targetFolderNames } from '../../cli/run.ts';
import { cli } from '../support/cli.ts';
import { closedPort } from '../support/ports.ts';

let dir = '';
const refs: EmbeddedReference[] = [];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'idpc-targets-'));
  for (const name of ['tenant-a', 'tenant-b']) {
    const ref = await startEmbeddedReference(name === 'tenant-b' ? { flaws: ['state-dropped'] } : {});
    refs.push(ref);
    await writeFile(join(dir, `${name}.json`), JSON.stringify(ref.target));
  }
  const port = await closedPort();
  await writeFile(join(dir, 'gone.json'), JSON.stringify({ ...refs[0]!.target, issuer: `http://127.0.0.1:${port}` }));
}, 60_000);
afterAll(async () => {
  for (const ref of refs) await ref.server.close();
  await rm(dir, { recursive: true, force: true });
});

/** --target for each of these config files in `dir`. */
const targets = (...names: string[]) => names.flatMap((name) => ['--target', join(dir, `${name}.json`)]);

describe('run with several --target', () => {
  it('one report folder per target and an index; a failing target makes exit 1', async () => {
    const out = join(dir, 'two');
    const run = await cli(
      'run',
      ...targets('tenant-a', 'tenant-b'),
      '--only',
      'code.state-round-trip,discovery.document',
      '--seed',
      '3',
      '--report',
      out,
    );
    expect(run.code, run.stderr).toBe(1);
    const index = JSON.parse(await readFile(join(out, 'index.json'), 'utf8')) as {
      targets: { name: string; code: number; summary: { failed: number } }[];
    };
    expect(index.targets.map((t) => [t.name, t.code, t.summary.failed])).toEqual([
      ['tenant-a', 0, 0],
      ['tenant-b', 1, 1],
    ]);
    for (const name of ['tenant-a', 'tenant-b']) await access(join(out, name, 'report.html'));
    const html = await readFile(join(out, 'index.html'), 'utf8');
    expect(html).toContain('href="tenant-a/report.html"');
    expect(html).toContain(refs[1]!.issuer);
    expect(run.stdout).toMatch(/failed\s+tenant-b/);
  }, 120_000);

  it('without --seed, every target of the run gets the one seed drawn for it', async () => {
    const out = join(dir, 'one-seed');
    const run = await cli('run', ...targets('tenant-a', 'gone'), '--only', 'discovery.document', '--report', out);
    expect(run.code).toBe(3);
    const seedOf = async (name: string) =>
      (JSON.parse(await readFile(join(out, name, 'report.json'), 'utf8')) as { seed: number }).seed;
    const seed = await seedOf('tenant-a');
    // the unreachable target's report (the run that stopped) has the same seed as the one that ran
    expect(await seedOf('gone')).toBe(seed);
  }, 120_000);

  it('an unreachable target is listed as such and the run exits 3; the others still run', async () => {
    const out = join(dir, 'three');
    const run = await cli(
      'run',
      ...targets('tenant-a', 'gone'),
      '--only',
      'discovery.document',
      '--seed',
      '3',
      '--report',
      out,
    );
    expect(run.code).toBe(3);
    const index = JSON.parse(await readFile(join(out, 'index.json'), 'utf8')) as {
      targets: { name: string; code: number; summary?: unknown }[];
    };
    expect(index.targets.map((t) => [t.name, t.code, t.summary === undefined])).toEqual([
      ['tenant-a', 0, false],
      ['gone', 3, true],
    ]);
  }, 120_000);

  it('a bad config among them stops the run before any request (exit 2, naming the file)', async () => {
    await writeFile(join(dir, 'bad.json'), JSON.stringify({ issuer: 'not a url' }));
    const run = await cli(
      'run',
      '--target',
      join(dir, 'tenant-a.json'),
      '--target',
      join(dir, 'bad.json'),
      '--report',
      join(dir, 'bad'),
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('bad.json');
  });

  it('folder names come from the file names or hosts and never collide', () => {
    expect(
      targetFolderNames(['a/t.json', 'b/t.json', 'https://idp.example/x', '../weird name.jsonc', '.hidden.json']),
    ).toEqual(['t', 't-2', 'idp.example', 'weird-name', 'hidden']);
  });
});
