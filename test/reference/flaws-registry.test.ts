/**
 * Every planted flaw in the registry is a real switch: some `flaws.has('name')` in reference/
 * reads it (docs/catalog.md). Read from the source tree, so that a flaw named but never wired fails.
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

  // That every switch names a registered flaw is the type checker's: Flaws.has takes a FlawName. And when the source
  // is not read at all, every flaw is unwired here.
  it('every flaw is switched at its check', () => {
    const unwired = FLAW_NAMES.filter((name) => !switches.has(name)).sort();
    expect(unwired).toEqual([]);
  });
});
