/** `idp-conformance serve` and its flaw switches (docs/reports.md, docs/catalog.md), through the installed binary. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FLAW_NAMES, FLAWS, VARIANT_NAMES, VARIANTS } from '../../reference/index.ts';

const BIN = join(import.meta.dirname, '../../bin/idp-conformance.js');

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

function start(args: string[]): Run {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = once(child, 'exit').then(([code]) => code as number | null);
  return { child, stdout: () => stdout, stderr: () => stderr, exit };
}

/** Starts `serve` on a free port and waits for its banner; answers the issuer it printed. */
async function serve(args: string[]): Promise<Run & { issuer: string }> {
  const run = start(['serve', '--port', '0', '--signing-alg', 'ES256', ...args]);
  while (!run.stdout().includes('Press Ctrl+C')) {
    const exited = await Promise.race([run.exit.then(() => true), once(run.child.stdout!, 'data').then(() => false)]);
    if (exited) throw new Error(`serve exited early: ${run.stderr()}`);
  }
  const issuer = /issuer\s+(\S+)/.exec(run.stdout())?.[1];
  if (!issuer) throw new Error(`no issuer in the banner: ${run.stdout()}`);
  return { ...run, issuer };
}

async function stop(run: Run): Promise<number | null> {
  run.child.kill('SIGTERM');
  return run.exit;
}

describe.concurrent('serve and the planted flaws', () => {
  it('--list-flaws lists every flaw of the registry with its description', async () => {
    const run = start(['serve', '--list-flaws']);
    expect(await run.exit).toBe(0);
    const lines = run.stdout().trim().split('\n');
    expect(lines).toHaveLength(FLAW_NAMES.length);
    expect(lines.map((line) => line.trim().split(/\s{2,}/))).toEqual(FLAW_NAMES.map((name) => [name, FLAWS[name]]));
  });

  it('an unknown flaw is a usage error (exit 2) that lists the known ones; nothing starts', async () => {
    const run = start(['serve', '--port', '0', '--flaw', 'state-dropped', '--flaw', 'no-such-flaw']);
    expect(await run.exit).toBe(2);
    expect(run.stderr()).toContain('unknown flaw "no-such-flaw"');
    for (const name of FLAW_NAMES) expect(run.stderr()).toContain(name);
    expect(run.stdout()).not.toContain('reference server');
  });

  it('--list-variants lists every variant with what it does and its source', async () => {
    const run = start(['serve', '--list-variants']);
    expect(await run.exit).toBe(0);
    const lines = run.stdout().trim().split('\n');
    expect(lines).toHaveLength(VARIANT_NAMES.length * 2);
    VARIANT_NAMES.forEach((name, i) => {
      expect(lines[2 * i]!.trim().split(/\s{2,}/)).toEqual([name, VARIANTS[name].does]);
      expect(lines[2 * i + 1]!.trim()).toBe(`source: ${VARIANTS[name].source}`);
    });
  });

  it('an unknown variant is a usage error (exit 2) that lists the known ones; --variant switches one on', async () => {
    const unknown = start(['serve', '--port', '0', '--variant', 'no-such-variant']);
    expect(await unknown.exit).toBe(2);
    expect(unknown.stderr()).toContain('unknown variant "no-such-variant"');
    for (const name of VARIANT_NAMES) expect(unknown.stderr()).toContain(name);
    const run = await serve(['--variant', 'lowercase-bearer']);
    try {
      expect(run.stdout()).toContain('Variants on (legitimate behaviours, docs/fixture.md): lowercase-bearer');
      expect(run.stderr()).not.toMatch(/PLANTED FLAWS/);
    } finally {
      expect(await stop(run)).toBe(0);
    }
  });

  it('--flaw (repeatable) switches flaws on, with a loud warning on stderr', async () => {
    const run = await serve(['--flaw', 'jwks-leaks-private', '--flaw', 'state-dropped']);
    try {
      expect(run.stderr()).toMatch(/WARNING: PLANTED FLAWS ARE ON/);
      expect(run.stderr()).toContain(`jwks-leaks-private  ${FLAWS['jwks-leaks-private']}`);
      expect(run.stderr()).toContain('state-dropped');
      const jwks = (await (await fetch(`${run.issuer}/jwks`)).json()) as { keys: Record<string, unknown>[] };
      expect(jwks.keys[0]).toHaveProperty('d');
    } finally {
      expect(await stop(run)).toBe(0);
    }
  });

  it('without --flaw: no warning, and the JWKS is public', async () => {
    const run = await serve(['--legacy-client']);
    try {
      expect(run.stderr()).not.toMatch(/WARNING/);
      expect(run.stdout()).toContain('legacy-app');
      const jwks = (await (await fetch(`${run.issuer}/jwks`)).json()) as { keys: Record<string, unknown>[] };
      expect(jwks.keys[0]).not.toHaveProperty('d');
      expect(jwks.keys[0]).toMatchObject({ alg: 'ES256' });
    } finally {
      expect(await stop(run)).toBe(0);
    }
  });

  it('an unsupported --signing-alg is a usage error', async () => {
    const run = start(['serve', '--signing-alg', 'HS256']);
    expect(await run.exit).toBe(2);
    expect(run.stderr()).toContain('--signing-alg must be one of RS256, PS256, ES256, EdDSA');
  });

  it('--variant signing-es256 with another --signing-alg is a usage error', async () => {
    const run = start(['serve', '--variant', 'signing-es256', '--signing-alg', 'PS256']);
    expect(await run.exit).toBe(2);
    expect(run.stderr()).toContain('--variant signing-es256 signs with ES256, not --signing-alg PS256');
  });
});
