/**
 * Every planted flaw in the registry is a real switch: some `flaws.has('name')` in reference/
 * reads it (DESIGN §6). Read from the source tree, so that a flaw named but never wired fails.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FLAW_NAMES } from '../../reference/index.ts';

const REFERENCE = join(import.meta.dirname, '../../reference');

function switchesInSource(): Set<string> {
  const names = new Set<string>();
  for (const file of readdirSync(REFERENCE, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.ts')) continue;
    const source = readFileSync(join(REFERENCE, file), 'utf8');
    for (const match of source.matchAll(/flaws\.has\(\s*'([^']+)'\s*\)/g)) names.add(match[1]!);
  }
  return names;
}

describe('the flaw registry', () => {
  const switches = switchesInSource();

  it('every flaw is switched at its check, except exactly the known pending ones', () => {
    const unwired = FLAW_NAMES.filter((name) => !switches.has(name)).sort();
    expect(unwired).toEqual([]);
  });

  it('every switch in the source names a registered flaw', () => {
    expect([...switches].filter((name) => !(FLAW_NAMES as string[]).includes(name))).toEqual([]);
  });

  it('the source is really read: the core switches are found', () => {
    expect(switches.has('pkce-verifier-ignored')).toBe(true);
    expect(switches.size).toBeGreaterThan(30);
  });
});
